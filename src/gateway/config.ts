// The gateway's configuration (`agent-ledger mcp --config gateway.toml`): several upstreams behind one front, each
// with its target, annotations, include/exclude globs, pinning mode and rate limits. The single-upstream flags
// become the same shape (fromFlags), so the proxy is built from one type whichever way it was started.
import { existsSync, readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { parse as parseToml } from "smol-toml";
import { z } from "zod";
import { upstreamNameProblem } from "./names.js";
import { parseRate, RATE_FORMS, type Rate } from "./rate.js";

/** How an upstream's tool definitions are pinned: drift listed and served, drifted tools hidden, or not checked. */
export type PinMode = "warn" | "block" | "off";

/** Where an upstream is: a command to spawn (argv) or a Streamable HTTP URL with its headers (secrets expanded). */
export type GatewayTarget = { command: string[] } | { url: string; headers: Record<string, string> };

/** One upstream of the gateway. */
export type UpstreamConfig = {
  name: string;
  /** Declares and records the upstream's tools in the ledger as `<namespace>.<tool>`; the upstream's name by default. */
  namespace: string;
  target: GatewayTarget;
  /** Absolute path of the annotation file, or null for none. */
  annotations: string | null;
  /** Globs a served tool must match; null serves every tool. */
  include: string[] | null;
  exclude: string[];
  pin: PinMode;
  rate: Rate | null;
  /** Per-tool limits, by the upstream's own tool name. */
  toolRates: Record<string, Rate>;
};

/** The whole gateway. */
export type GatewayConfig = {
  /** The file it was read from, or "flags" for the single-upstream command line. */
  source: string;
  /** HOST:PORT of the HTTP front, or null for stdio. */
  listen: string | null;
  /** True: tools and prompts are advertised as `<upstream>__<name>`; false (single upstream from flags): plain names. */
  prefixNames: boolean;
  /** True only when the operator allows the gateway to replace a team declaration of the same ledger name. */
  overwriteDeclarations: boolean;
  upstreams: UpstreamConfig[];
};

/** One problem of a gateway file: the key (`upstreams.usgs.pin`) and what is wrong with it. */
export type GatewayConfigIssue = { path: string; message: string };

/** A gateway file that cannot be used; the message names the file and every key at fault, never a secret's value. */
export class GatewayConfigError extends Error {
  readonly code = "invalid_gateway_config";
  constructor(
    readonly file: string,
    readonly issues: GatewayConfigIssue[],
  ) {
    super(`${file}: ${issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join("; ")}`);
    this.name = "GatewayConfigError";
  }
}

const HTTP_URL = /^https?:\/\/\S+$/;
const LISTEN = /^(?:\[[0-9A-Fa-f:.]+\]|[^\s:[\]]+):[0-9]{1,5}$/;
// RFC 9110 field-name token characters.
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const ENV_REF = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

const Globs = z.array(z.string().min(1, "a glob may not be empty")).max(1000);
const RateText = z.string().refine((t) => parseRate(t) !== null, { message: `expected ${RATE_FORMS}` });

const UpstreamSchema = z
  .strictObject({
    command: z.array(z.string().min(1, "an argument may not be empty")).min(1, "give the program to run").optional(),
    url: z.string().refine((u) => HTTP_URL.test(u) && URL.canParse(u), {
      message: "expected an http(s) URL such as http://127.0.0.1:3001/mcp",
    }),
    headers: z.record(z.string().regex(HEADER_NAME, "not a valid header name"), z.string()).optional(),
    annotations: z.string().min(1).optional(),
    include: Globs.optional(),
    exclude: Globs.optional(),
    pin: z.enum(["warn", "block", "off"]).optional(),
    rate: RateText.optional(),
    namespace: z.string().optional(),
    tools: z.record(z.string().min(1), z.strictObject({ rate: RateText.optional() })).optional(),
  })
  .partial({ url: true });

const FileSchema = z.strictObject({
  listen: z.string().regex(LISTEN, "expected HOST:PORT such as 127.0.0.1:8788 or [::1]:8788").optional(),
  overwrite_declarations: z.boolean().optional(),
  upstreams: z.record(z.string(), UpstreamSchema).refine((u) => Object.keys(u).length > 0, {
    message: "name at least one upstream, as in [upstreams.usgs] with url = ... or command = [...]",
  }),
});

type UpstreamInput = z.infer<typeof UpstreamSchema>;

/** Replaces every `${NAME}` in a header value; an unset variable is an issue naming it (the value is never shown). */
function expand(value: string, env: NodeJS.ProcessEnv, path: string, issues: GatewayConfigIssue[]): string {
  const out = value.replace(ENV_REF, (_m, name: string) => {
    const v = env[name];
    if (v === undefined) {
      issues.push({ path, message: `the environment variable ${name} is not set; set it where the gateway runs` });
      return "";
    }
    return v;
  });
  // Header injection: a value that expands to a line break would start a new header.
  if (/[\r\n]/.test(out))
    issues.push({ path, message: "the value (after ${...} expansion) holds a line break, which a header may not" });
  return out;
}

/** Checks what zod cannot see alone (name rules, one target, paths, secrets) and builds one upstream. */
function upstreamOf(
  name: string,
  u: UpstreamInput,
  baseDir: string,
  env: NodeJS.ProcessEnv,
  issues: GatewayConfigIssue[],
): UpstreamConfig {
  const at = `upstreams.${name}`;
  const nameProblem = upstreamNameProblem(name);
  if (nameProblem) issues.push({ path: at, message: nameProblem });
  if ((u.command === undefined) === (u.url === undefined))
    issues.push({ path: at, message: 'give exactly one of command = [...] or url = "..."' });
  if (u.headers && u.url === undefined)
    issues.push({ path: `${at}.headers`, message: "headers go with url; a command upstream takes none" });
  if (u.namespace !== undefined && upstreamNameProblem(u.namespace))
    issues.push({ path: `${at}.namespace`, message: `expected a name like an upstream's; received '${u.namespace}'` });
  const headers: Record<string, string> = {};
  for (const [h, v] of Object.entries(u.headers ?? {})) headers[h] = expand(v, env, `${at}.headers.${h}`, issues);
  let annotations: string | null = null;
  if (u.annotations !== undefined) {
    annotations = resolve(baseDir, u.annotations);
    if (!existsSync(annotations))
      issues.push({
        path: `${at}.annotations`,
        message: `no file at ${annotations} (paths are relative to this file)`,
      });
  }
  const toolRates: Record<string, Rate> = {};
  for (const [tool, t] of Object.entries(u.tools ?? {})) if (t.rate) toolRates[tool] = parseRate(t.rate)!;
  return {
    name,
    namespace: u.namespace ?? name,
    target: u.url !== undefined ? { url: u.url, headers } : { command: u.command ?? [] },
    annotations,
    include: u.include ?? null,
    exclude: u.exclude ?? [],
    pin: u.pin ?? "warn",
    rate: u.rate === undefined ? null : parseRate(u.rate),
    toolRates,
  };
}

/** Parses a gateway file's text; `file` names it in errors and anchors relative annotation paths. */
export function parseGatewayConfig(text: string, file: string, env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  let raw: unknown;
  try {
    raw = parseToml(text);
  } catch (e) {
    throw new GatewayConfigError(file, [
      { path: "", message: `not valid TOML: ${(e as Error).message.split("\n")[0]}` },
    ]);
  }
  const parsed = FileSchema.safeParse(raw);
  if (!parsed.success)
    throw new GatewayConfigError(
      file,
      parsed.error.issues.map((i) => ({ path: i.path.map(String).join("."), message: i.message })),
    );
  const issues: GatewayConfigIssue[] = [];
  const baseDir = dirname(resolve(file));
  const upstreams = Object.entries(parsed.data.upstreams).map(([name, u]) => upstreamOf(name, u, baseDir, env, issues));
  // Two upstreams under one namespace would declare each other's tools over one another in the ledger.
  const owner = new Map<string, string>();
  for (const u of upstreams) {
    const other = owner.get(u.namespace);
    if (other !== undefined)
      issues.push({
        path: `upstreams.${u.name}.namespace`,
        message: `namespace '${u.namespace}' is already upstreams.${other}'s`,
      });
    else owner.set(u.namespace, u.name);
  }
  if (issues.length > 0) throw new GatewayConfigError(file, issues);
  return {
    source: file,
    listen: parsed.data.listen ?? null,
    prefixNames: true,
    overwriteDeclarations: parsed.data.overwrite_declarations ?? false,
    upstreams,
  };
}

/** Reads and checks a gateway file (`agent-ledger mcp --config FILE`). */
export function loadGatewayConfig(file: string, env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    throw new GatewayConfigError(file, [
      { path: "", message: `cannot read the gateway file: ${(e as Error).message}` },
    ]);
  }
  return parseGatewayConfig(text, file, env);
}
