// What the gateway advertises from several upstreams, and where each request goes back to: tools and prompts renamed
// `<upstream>__<name>`; resources keep their URIs (a URI names a thing, renaming it would break links the upstream's
// own results hold), routed by a URI -> upstream map built from each upstream's list, and templates by their literal
// prefix. Pure: the proxy lists each upstream, calls buildCatalogue, and asks it where a call or read goes.
import { toolSelected } from "./glob.js";
import { advertisedName, splitAdvertised } from "./names.js";

/** A listed item: a tool or prompt (by `name`), with whatever else the upstream said about it. */
export type Named = { name: string } & Record<string, unknown>;
/** A listed resource (by `uri`). */
export type Resource = { uri: string } & Record<string, unknown>;
/** A listed resource template (by `uriTemplate`, RFC 6570). */
export type ResourceTemplate = { uriTemplate: string } & Record<string, unknown>;

/** One upstream's lists as it answered them, with its include/exclude globs; `up: false` when it cannot be reached. */
export type UpstreamListing = {
  name: string;
  include: readonly string[] | null;
  exclude: readonly string[];
  up: boolean;
  tools: readonly Named[];
  prompts: readonly Named[];
  resources: readonly Resource[];
  templates: readonly ResourceTemplate[];
};

/** Why a listed item is not advertised. */
export type HiddenReason = "excluded" | "name_too_long" | "uri_taken";

/** Where an advertised tool or prompt goes: the upstream and its own name for it. */
export type Route = { upstream: string; name: string };

/** What the gateway advertises and how it routes back. */
export type Catalogue = {
  tools: Named[];
  prompts: Named[];
  resources: Resource[];
  templates: ResourceTemplate[];
  toolRoutes: ReadonlyMap<string, Route>;
  promptRoutes: ReadonlyMap<string, Route>;
  resourceRoutes: ReadonlyMap<string, string>;
  /** Template prefixes, longest first, each with its upstream. */
  templateRoutes: readonly { prefix: string; upstream: string }[];
  hidden: { upstream: string; kind: "tool" | "prompt" | "resource" | "template"; name: string; reason: HiddenReason }[];
  /** Upstreams configured but not reachable now: their tools answer a tool error naming them. */
  down: string[];
};

/** The answer to "where does this tool call go?". */
export type ToolRouting =
  | { kind: "route"; upstream: string; tool: string }
  | { kind: "excluded"; upstream: string; tool: string }
  | { kind: "down"; upstream: string; tool: string }
  | { kind: "unknown" };

/** The literal text of a URI template before its first expression: the part every URI it makes starts with. */
export function templatePrefix(uriTemplate: string): string {
  const at = uriTemplate.indexOf("{");
  return at < 0 ? uriTemplate : uriTemplate.slice(0, at);
}

function rename(
  upstream: UpstreamListing,
  items: readonly Named[],
  kind: "tool" | "prompt",
  prefix: boolean,
  out: { list: Named[]; routes: Map<string, Route>; hidden: Catalogue["hidden"] },
): void {
  for (const item of items) {
    // include/exclude select tools only: prompts are not callable tools, and the issue scopes the globs to tools.
    if (kind === "tool" && !toolSelected(item.name, upstream.include, upstream.exclude)) {
      out.hidden.push({ upstream: upstream.name, kind, name: item.name, reason: "excluded" });
      continue;
    }
    const name = prefix ? advertisedName(upstream.name, item.name) : item.name;
    if (name === null) {
      out.hidden.push({ upstream: upstream.name, kind, name: item.name, reason: "name_too_long" });
      continue;
    }
    out.list.push({ ...item, name });
    out.routes.set(name, { upstream: upstream.name, name: item.name });
  }
}

/**
 * The advertised lists and routing maps of a gateway, from each upstream's lists in config order. `prefix` false (a
 * single upstream from the flags) keeps plain names. A resource URI or template listed by two upstreams stays with
 * the first; the later one is hidden as `uri_taken`, so a read never depends on which upstream answered first.
 */
export function buildCatalogue(upstreams: readonly UpstreamListing[], prefix = true): Catalogue {
  const hidden: Catalogue["hidden"] = [];
  const tools = { list: [] as Named[], routes: new Map<string, Route>(), hidden };
  const prompts = { list: [] as Named[], routes: new Map<string, Route>(), hidden };
  const resources: Resource[] = [];
  const resourceRoutes = new Map<string, string>();
  const templates: ResourceTemplate[] = [];
  const templateRoutes: { prefix: string; upstream: string }[] = [];
  const takenTemplates = new Set<string>();
  for (const u of upstreams) {
    if (!u.up) continue;
    rename(u, u.tools, "tool", prefix, tools);
    rename(u, u.prompts, "prompt", prefix, prompts);
    for (const r of u.resources) {
      if (resourceRoutes.has(r.uri)) {
        hidden.push({ upstream: u.name, kind: "resource", name: r.uri, reason: "uri_taken" });
        continue;
      }
      resourceRoutes.set(r.uri, u.name);
      resources.push(r);
    }
    for (const t of u.templates) {
      if (takenTemplates.has(t.uriTemplate)) {
        hidden.push({ upstream: u.name, kind: "template", name: t.uriTemplate, reason: "uri_taken" });
        continue;
      }
      takenTemplates.add(t.uriTemplate);
      templates.push(t);
      templateRoutes.push({ prefix: templatePrefix(t.uriTemplate), upstream: u.name });
    }
  }
  // Longest prefix first; a stable sort keeps config order between equal prefixes.
  templateRoutes.sort((a, b) => b.prefix.length - a.prefix.length);
  return {
    tools: tools.list,
    prompts: prompts.list,
    resources,
    templates,
    toolRoutes: tools.routes,
    promptRoutes: prompts.routes,
    resourceRoutes,
    templateRoutes,
    hidden,
    down: upstreams.filter((u) => !u.up).map((u) => u.name),
  };
}

/** Where a tools/call of an advertised name goes, or why it goes nowhere (excluded, upstream down, unknown). */
export function routeTool(catalogue: Catalogue, name: string): ToolRouting {
  const route = catalogue.toolRoutes.get(name);
  if (route) return { kind: "route", upstream: route.upstream, tool: route.name };
  const hidden = catalogue.hidden.find((h) => h.kind === "tool" && h.reason === "excluded" && matches(h, name));
  if (hidden) return { kind: "excluded", upstream: hidden.upstream, tool: hidden.name };
  const split = splitAdvertised(name);
  if (split && catalogue.down.includes(split.upstream))
    return { kind: "down", upstream: split.upstream, tool: split.tool };
  return { kind: "unknown" };
}

const matches = (h: { upstream: string; name: string }, advertised: string): boolean =>
  advertised === h.name || advertised === advertisedName(h.upstream, h.name);

/** The upstream a prompts/get of an advertised prompt name goes to, with its own name, or null. */
export function routePrompt(catalogue: Catalogue, name: string): Route | null {
  return catalogue.promptRoutes.get(name) ?? null;
}

/** The upstream a resources/read of `uri` goes to: the one that listed it, else the longest matching template prefix. */
export function routeResource(catalogue: Catalogue, uri: string): string | null {
  const listed = catalogue.resourceRoutes.get(uri);
  if (listed !== undefined) return listed;
  // An empty prefix ("{+path}") would claim every URI; it only answers when nothing more specific does.
  return catalogue.templateRoutes.find((t) => uri.startsWith(t.prefix))?.upstream ?? null;
}

/** The tool-error text for a call that goes nowhere; null for a routed call. */
export function routingError(routing: ToolRouting, name: string): string | null {
  const upstream = "upstream" in routing ? routing.upstream : "";
  const table: Record<ToolRouting["kind"], string | null> = {
    route: null,
    excluded: `tool '${name}' is excluded by the gateway's configuration (upstreams.${upstream}.include/exclude); it is not served`,
    down: `upstream '${upstream}' is not reachable now, so its tool '${name}' cannot be called; the other upstreams still answer`,
    unknown: `no upstream serves a tool named '${name}'; list the tools with tools/list`,
  };
  return table[routing.kind];
}
