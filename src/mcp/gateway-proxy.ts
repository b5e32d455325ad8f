// `agent-ledger mcp --config gateway.toml`: several upstreams behind one front. Each upstream is a GuardedProxy of
// its own (its connection, its annotations, its tools declared under `<namespace>.<tool>`); the gateway lists them
// together as `<upstream>__<tool>` (src/gateway/catalogue.ts), asks its GatewayView where each call goes (or why it
// goes nowhere), and keeps one ledger session per agent across all of them, so carry-over between upstreams is caught.
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ErrorCode } from "@modelcontextprotocol/sdk/types.js";
import {
  checkDeclarations,
  type ExistingDeclaration,
  type GatewayConfig,
  GatewayView,
  gatewayLimiter,
  type PlannedDeclaration,
  type UpstreamConfig,
  type UpstreamSnapshot,
} from "../gateway/index.js";
import { ledgerName, SEPARATOR, splitAdvertised } from "../gateway/names.js";
import { definitionOf, driftLabel, DRIFT_LABEL } from "../gateway/pins.js";
import type { RateLimiter } from "../gateway/rate-limit.js";
import { compileTool, type ToolDeclarationInput } from "../guard/declaration.js";
import { DEFAULT_LIMITS } from "../limits.js";
import { DatumRegistry } from "../quantity/datums.js";
import { noTelemetry, traceParentOf, type Telemetry } from "../telemetry/telemetry.js";
import { VERSION } from "../version.js";
import { type Annotations, loadAnnotations } from "./annotations.js";
import { FrontConnection, type Reply } from "./front.js";
import { type HeaderScan, NO_HEADERS } from "./param-headers.js";
import { MODERN_REVISION } from "./standard-headers.js";
import { GatewayAgents } from "./gateway-agents.js";
import { type Asking, GatewayRoutes } from "./gateway-routes.js";
import { HeldCalls, routedRound } from "./gateway-rounds.js";
import { type ProxyLedger, renderedDeclaration } from "./ledger-client.js";
import { GuardedProxy } from "./proxy.js";
import { toolErrorReply } from "./results.js";
import { advertisedTool } from "./rewrite.js";
import { sessionKeyOf } from "./session-key.js";
import type { RawTool } from "./upstream.js";
import { errorText, type UpstreamTarget } from "./upstream-link.js";

/** What a gateway is built from. */
export type GatewayOptions = {
  config: GatewayConfig;
  ledger: ProxyLedger;
  log?: (line: string) => void;
  timeoutMs?: number;
  telemetry?: Telemetry;
  maxDepth?: number;
  /** The environment a command upstream is spawned with (the proxy's own by default). */
  env?: NodeJS.ProcessEnv;
  /** The clock rate limits count by (milliseconds). */
  now?: () => number;
};

type Member = {
  config: UpstreamConfig;
  proxy: GuardedProxy;
  annotations: Annotations;
  snapshot: UpstreamSnapshot;
  /** The upstream's capabilities as its initialize answered them (empty while it is down). */
  caps: Record<string, unknown>;
};

// What the gateway tells its upstreams it can relay to its agents (an agent without the capability answers an error).
const RELAYED_CLIENT_CAPABILITIES = { sampling: {}, elicitation: {}, roots: { listChanged: true } };

// An upstream's list_changed notifications: its lists are read again (its tools pinned again), then its agents told.
const LIST_CHANGED = new Set([
  "notifications/tools/list_changed",
  "notifications/prompts/list_changed",
  "notifications/resources/list_changed",
]);

type ListKind = "prompts" | "resources" | "templates";
// The list request and result key of each non-tool list the gateway merges.
const LISTS: Record<ListKind, { method: string; key: string; capability: string }> = {
  prompts: { method: "prompts/list", key: "prompts", capability: "prompts" },
  resources: { method: "resources/list", key: "resources", capability: "resources" },
  templates: { method: "resources/templates/list", key: "resourceTemplates", capability: "resources" },
};

/** The listed items whose `key` is a string (the others cannot be routed, so are not advertised). */
const withString = (items: Record<string, unknown>[], key: string) => items.filter((i) => typeof i[key] === "string");

/** A ledger shared by every upstream's proxy: closing one proxy must not close it for the others. */
function shared(ledger: ProxyLedger): ProxyLedger {
  return new Proxy(ledger, {
    get: (target, prop) => (prop === "close" ? () => Promise.resolve() : Reflect.get(target, prop, target)),
  });
}

/** The GuardedProxy target of an upstream of the gateway file. */
function targetOf(u: UpstreamConfig, env: NodeJS.ProcessEnv): UpstreamTarget {
  if ("url" in u.target) return { url: u.target.url, headers: u.target.headers };
  const [command, ...args] = u.target.command;
  return { command: command!, args, env };
}

/** A planned declaration as GET /v1/tools renders it, to compare with the ledger's; null when it does not compile. */
function rendered(name: string, input: ToolDeclarationInput): Record<string, unknown> | null {
  try {
    return renderedDeclaration(compileTool(name, input, { datums: new DatumRegistry() }));
  } catch {
    return null;
  }
}

/** Several upstreams, one ledger, any number of agent connections. */
export class GatewayProxy {
  private readonly members: Member[];
  private readonly byName = new Map<string, Member>();
  private readonly config: GatewayConfig;
  private readonly ledger: ProxyLedger;
  private readonly log: (line: string) => void;
  private readonly limiter: RateLimiter;
  private readonly now: () => number;
  private readonly maxDepth: number;
  private readonly agents = new GatewayAgents();
  private readonly held: HeldCalls;
  private readonly routes: GatewayRoutes;
  private view: GatewayView;
  private connections = 0;

  constructor(options: GatewayOptions) {
    this.config = options.config;
    this.ledger = options.ledger;
    this.log = options.log ?? (() => undefined);
    this.limiter = gatewayLimiter(options.config);
    this.now = options.now ?? Date.now;
    this.maxDepth = options.maxDepth ?? DEFAULT_LIMITS.depth;
    // An agent has as long to come back with its answers as an upstream has to answer a request.
    this.held = new HeldCalls(options.timeoutMs ?? 60_000);
    const ledger = shared(options.ledger);
    this.members = options.config.upstreams.map((u) => {
      const annotations: Annotations = u.annotations ? loadAnnotations(u.annotations) : new Map();
      const proxy = new GuardedProxy({
        upstream: targetOf(u, options.env ?? process.env),
        annotations,
        ledger,
        log: (line) => this.log(`upstream '${u.name}': ${line}`),
        timeoutMs: options.timeoutMs,
        namespace: u.namespace,
        telemetry: options.telemetry ?? noTelemetry,
        maxDepth: this.maxDepth,
        upstreamName: u.name,
        planDeclarations: (planned) => this.plan(u, planned),
      });
      proxy.upstream.attach({
        capabilities: RELAYED_CLIENT_CAPABILITIES,
        request: (method, params, signal) => this.agents.ask(u.name, method, params, signal),
        notify: (method, params) => this.heard(u.name, method, params),
      });
      const snapshot = { name: u.name, up: false, tools: [], prompts: [], resources: [], templates: [], check: null };
      const m: Member = { config: u, proxy, annotations, snapshot, caps: {} };
      this.byName.set(u.name, m);
      return m;
    });
    this.view = new GatewayView(this.config, [], this.limiter);
    this.routes = new GatewayRoutes(
      {
        catalogue: () => this.view.catalogue,
        upstream: (name) => this.byName.get(name)!.proxy.upstream,
        logging: () =>
          this.members.filter((m) => m.snapshot.up && m.caps.logging !== undefined).map((m) => m.config.name),
        log: (line) => this.log(line),
      },
      this.agents,
    );
  }

  /**
   * Starts every upstream, checks and makes its declarations, pins its tools. An upstream that cannot be started is
   * served as down (its tools answer a tool error naming it); a declaration clash stops the start.
   */
  async start(): Promise<void> {
    for (const m of this.members) {
      try {
        await m.proxy.start();
      } catch (e) {
        if ((e as { code?: unknown }).code === "declaration_clash") throw e;
        this.log(`upstream '${m.config.name}' is down: ${errorText(e)}`);
      }
    }
    await this.refresh();
  }

  /** The `x-mcp-header` declarations of an advertised tool, as the upstream serving it last listed it (SEP-2243). */
  headerScan(advertised: string): HeaderScan {
    const route = this.view.catalogue.toolRoutes.get(advertised);
    const member = route && this.byName.get(route.upstream);
    return route && member ? member.proxy.headerScan(route.name) : NO_HEADERS;
  }

  /** The upstreams not reachable at the last listing. */
  get down(): string[] {
    return this.view.catalogue.down;
  }

  /** Lists every upstream's tools again (pinning each listing), and its prompts and resources; builds a new view. */
  async refresh(only?: string): Promise<void> {
    await Promise.all(
      this.members.filter((m) => only === undefined || m.config.name === only).map((m) => this.list(m)),
    );
    this.view = new GatewayView(
      this.config,
      this.members.map((m) => m.snapshot),
      this.limiter,
    );
  }

  private async list(m: Member): Promise<void> {
    const u = m.config;
    let tools: RawTool[];
    try {
      tools = await m.proxy.upstream.listTools();
    } catch (e) {
      if ((e as { code?: unknown }).code === "declaration_clash") throw e;
      if (m.snapshot.up) this.log(`upstream '${u.name}' is down: ${errorText(e)}`);
      m.snapshot = { ...m.snapshot, up: false };
      return;
    }
    const check =
      u.pin === "off"
        ? null
        : await this.ledger.observe(
            u.name,
            u.pin,
            tools.map((t) => definitionOf(t)),
          );
    for (const d of check?.newDrifts ?? [])
      this.log(`upstream '${u.name}': tool '${d.tool}' ${d.kind} since it was pinned (pin = "${u.pin}")`);
    const lists: Record<ListKind, Record<string, unknown>[]> = { prompts: [], resources: [], templates: [] };
    const caps = await m.proxy.upstream.capabilities().catch(() => ({}) as Record<string, unknown>);
    m.caps = caps;
    for (const [kind, l] of Object.entries(LISTS) as [ListKind, (typeof LISTS)[ListKind]][]) {
      if (caps[l.capability] === undefined) continue;
      const answer = await m.proxy.upstream.relay(l.method, {}).catch(() => null);
      const items = (answer?.result as Record<string, unknown> | undefined)?.[l.key];
      if (Array.isArray(items)) lists[kind] = items as Record<string, unknown>[];
    }
    m.snapshot = {
      name: u.name,
      up: true,
      tools: tools.map((t) => advertisedTool(t, m.annotations.get(t.name)) as RawTool & Record<string, unknown>),
      prompts: withString(lists.prompts, "name") as unknown as UpstreamSnapshot["prompts"],
      resources: withString(lists.resources, "uri") as unknown as UpstreamSnapshot["resources"],
      templates: withString(lists.templates, "uriTemplate") as unknown as UpstreamSnapshot["templates"],
      check,
    };
  }

  /**
   * The declarations of one upstream to make now: a name the ledger holds with other content is a clash
   * (DeclarationClashError, naming both) unless the gateway pinned that tool before (so declared it itself) or the
   * operator allowed overwriting.
   */
  private async plan(u: UpstreamConfig, planned: PlannedDeclaration[]): Promise<PlannedDeclaration[]> {
    const owned = u.pin === "off" ? new Set<string>() : await this.ledger.pinnedTools(u.name);
    const existing: ExistingDeclaration[] = [];
    const shaped: PlannedDeclaration[] = [];
    for (const p of planned) {
      const p2 = { ...p, upstream: u.name };
      const found = await this.ledger.declared(p.name);
      if (found && !owned.has(p.tool))
        existing.push({ name: p.name, version: found.version, declaration: found.declaration });
      shaped.push({ ...p2, declaration: (rendered(p.name, p.declaration) ?? p.declaration) as ToolDeclarationInput });
    }
    const { declare, clashes } = checkDeclarations(existing, shaped, this.config.overwriteDeclarations);
    for (const c of clashes)
      this.log(`overwriting version ${c.existing.version} of '${c.existing.name}' (overwrite_declarations is set)`);
    const chosen = new Set(declare.map((d) => d.name));
    return planned.filter((p) => chosen.has(p.name));
  }

  /**
   * The capabilities the front announces: tools (whose list changes when an upstream's does); prompts and resources
   * when any upstream has them, with subscribe when any upstream takes subscriptions; logging and completions when any
   * upstream has them.
   */
  private capabilities(): Record<string, unknown> {
    const caps: Record<string, unknown> = { tools: { listChanged: true } };
    const c = this.view.catalogue;
    const any = (key: string) => this.members.some((m) => m.caps[key] !== undefined);
    if (c.prompts.length > 0 || this.members.some((m) => m.snapshot.prompts.length > 0))
      caps.prompts = { listChanged: true };
    if (c.resources.length > 0 || c.templates.length > 0) {
      const subscribe = this.members.some((m) => (m.caps.resources as { subscribe?: unknown })?.subscribe === true);
      caps.resources = subscribe ? { subscribe: true, listChanged: true } : { listChanged: true };
    }
    if (any("logging")) caps.logging = {};
    if (any("completions")) caps.completions = {};
    return caps;
  }

  /** What an upstream sent besides answers: a list changed (read again, pinned again, agents told), an update, a log. */
  private heard(upstream: string, method: string, params: Record<string, unknown>): void {
    if (method === "notifications/message") {
      const logger = typeof params.logger === "string" ? `${upstream}${SEPARATOR}${params.logger}` : upstream;
      this.agents.log(upstream, { ...params, logger });
      return;
    }
    if (method === "notifications/progress") {
      this.agents.progressed(params);
      return;
    }
    if (method === "notifications/resources/updated") {
      this.agents.updated(params);
      return;
    }
    if (!LIST_CHANGED.has(method)) return;
    // As at a restart: a drift is stored, and warn or block applies from the new view on.
    this.refresh(upstream).then(
      () => this.agents.broadcast(method),
      (e: unknown) => this.log(`upstream '${upstream}': could not list it again after ${method}: ${errorText(e)}`),
    );
  }

  /** Serves one agent connection over `transport` (the same options as GuardedProxy.connect). */
  async connect(
    transport: Transport,
    options: { labels?: () => Record<string, string>; mcpSessionId?: () => string | undefined; modern?: boolean } = {},
  ): Promise<FrontConnection> {
    const connection = ++this.connections;
    let initialized = 0;
    const front: FrontConnection = new FrontConnection(transport, {
      serverInfo: { name: "agent-ledger", version: VERSION },
      modern: options.modern,
      capabilities: this.capabilities(),
      onInitialized: () => {
        initialized++;
      },
      onClose: () => {
        // A URI no other agent is subscribed to any more is unsubscribed upstream.
        for (const uri of this.agents.remove(front)) void this.routes.unsubscribeLeft(uri);
      },
      onNotification: (method, params) => {
        if (method !== "notifications/roots/list_changed") return;
        for (const m of this.members) if (m.snapshot.up) m.proxy.upstream.notify(method, params).catch(() => undefined);
      },
      handlers: {
        "tools/list": async () => {
          await this.refresh();
          return { result: { tools: this.view.catalogue.tools } };
        },
        "tools/call": ({ params, extra, id }) => {
          const mcpSessionId = options.mcpSessionId?.();
          const meta = params._meta as Record<string, unknown> | undefined;
          const key = sessionKeyOf(meta, {
            mcpSessionId,
            stdio: mcpSessionId === undefined && !options.modern ? `${connection}.${initialized}` : undefined,
          });
          const info = meta?.["io.modelcontextprotocol/clientInfo"] as { name?: unknown } | undefined;
          const client = typeof info?.name === "string" ? info.name : front.clientVersionName;
          const labels = { ...(client ? { client } : {}), ...options.labels?.() };
          const header = (h: string) => {
            const v = extra?.requestInfo?.headers[h];
            return Array.isArray(v) ? v[0] : v;
          };
          const parent =
            traceParentOf(header) ??
            traceParentOf((h) => (typeof meta?.[h] === "string" ? (meta[h] as string) : undefined));
          const session = () => this.sessionFor(key, labels);
          const mcp = {
            method: "tools/call",
            protocolVersion: front.protocolVersionOf(params),
            sessionId: mcpSessionId,
            requestId: id,
          };
          const modern = options.modern === true || mcp.protocolVersion === MODERN_REVISION;
          return this.call(params, session, parent, mcp, { front, id, modern });
        },
        "prompts/list": async () => {
          await this.refresh();
          return { result: { prompts: this.view.catalogue.prompts } };
        },
        "resources/list": async () => {
          await this.refresh();
          return { result: { resources: this.view.catalogue.resources } };
        },
        "resources/templates/list": async () => {
          await this.refresh();
          return { result: { resourceTemplates: this.view.catalogue.templates } };
        },
        "prompts/get": ({ params, id }) => this.routes.getPrompt(params, { front, id }),
        "resources/read": ({ params, id }) => this.routes.readResource(params, { front, id }),
        "resources/subscribe": ({ params }) => this.routes.subscribe(front, params, "resources/subscribe"),
        "resources/unsubscribe": ({ params }) => this.routes.subscribe(front, params, "resources/unsubscribe"),
        "completion/complete": ({ params, id }) => this.routes.complete(params, { front, id }),
        "logging/setLevel": ({ params }) => this.routes.setLevel(params),
      },
    });
    await front.start();
    this.agents.add(front);
    return front;
  }

  /** The agent's ledger session, shared by every upstream; labelled with the drifted tools when there are any. */
  private sessionFor(key: Parameters<GuardedProxy["sessionFor"]>[0], labels: Record<string, string>): Promise<string> {
    const drifted = this.members.flatMap((m) =>
      (m.snapshot.check?.drifted ?? []).map((tool) => ({ upstream: m.config.name, tool })),
    );
    const drift = driftLabel(drifted);
    const extra: Record<string, string> = {
      upstream: `gateway ${this.config.upstreams.map((u) => u.name).join(",")}`,
      ...labels,
      ...(drift ? { [DRIFT_LABEL]: drift } : {}),
    };
    return this.members[0]!.proxy.sessionFor(key, extra);
  }

  private async call(
    params: Record<string, unknown>,
    session: () => Promise<string>,
    parent: ReturnType<typeof traceParentOf>,
    mcp: { method: string; protocolVersion?: string; sessionId?: string; requestId: string | number },
    asking: Asking & { modern: boolean },
  ): Promise<Reply> {
    const { name, arguments: args } = params;
    const badArgs = args !== undefined && (typeof args !== "object" || args === null || Array.isArray(args));
    if (typeof name !== "string" || badArgs)
      return {
        error: {
          code: ErrorCode.InvalidParams,
          message: "Invalid tools/call request: params.name must be a string and params.arguments an object",
        },
      };
    const deep = this.members[0]!.proxy.tooDeep(name, args);
    if (deep) return deep;
    let decision = this.view.decideCall(name, this.now());
    // A blocked tool may have been approved since (agent-ledger pins approve): its upstream is listed again first.
    if (decision.kind === "refuse" && decision.code === "tool_blocked" && decision.upstream !== null) {
      await this.refresh(decision.upstream);
      decision = this.view.decideCall(name, this.now());
    }
    if (decision.kind === "refuse") {
      const text = `[${decision.code}] ${decision.message}`;
      if (decision.code === "rate_limited" || decision.code === "tool_blocked")
        await this.recordRefusal(
          name,
          decision.code,
          decision.message,
          text,
          (args ?? {}) as Record<string, unknown>,
          session,
        );
      return toolErrorReply(text);
    }
    const member = this.byName.get(decision.upstream)!;
    const forwarded = (args ?? {}) as Record<string, unknown>;
    const tool = decision.tool;
    const { round, run } = routedRound({
      upstream: decision.upstream,
      forward: (a, meta) => member.proxy.forward(tool, a, meta),
      agents: this.agents,
      held: this.held,
      front: asking.front,
      id: asking.id,
      params,
      modern: asking.modern,
    });
    return run(() => member.proxy.guardCall(tool, forwarded, session, parent, mcp, decision.digest, round));
  }

  /** Stores a refusal of an annotated tool as a refused call of the agent's session, as the guard's refusals are. */
  private async recordRefusal(
    name: string,
    code: "rate_limited" | "tool_blocked",
    message: string,
    repair: string,
    args: Record<string, unknown>,
    session: () => Promise<string>,
  ): Promise<void> {
    const split = splitAdvertised(name);
    const member = split ? this.byName.get(split.upstream) : undefined;
    if (!split || !member?.annotations.has(split.tool)) return;
    try {
      const tool = ledgerName(member.config.namespace, split.tool);
      const digest = member.snapshot.check?.digests[split.tool];
      await this.ledger.refuse(await session(), tool, args, { code, param: null, message, repair }, digest);
    } catch (e) {
      this.log(`could not record the refused call to ${name}: ${errorText(e)}`);
    }
  }

  /** Closes every agent connection, every upstream, then the ledger. */
  async close(): Promise<void> {
    await Promise.allSettled(this.agents.all.map((f) => f.close()));
    await Promise.allSettled(this.members.map((m) => m.proxy.close()));
    await this.ledger.close();
  }
}
