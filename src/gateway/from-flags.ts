// Today's single-upstream command line (`agent-ledger mcp --annotations F [--namespace N] -- cmd ...` or
// `--upstream-url`) as a GatewayConfig, so the proxy is built from one shape whichever way it was started.
import { basename, extname, resolve } from "node:path";
import type { GatewayConfig, GatewayTarget } from "./config.js";

/** What the single-upstream flags say, already checked by the CLI. */
export type SingleUpstreamFlags = {
  target: GatewayTarget;
  annotations: string;
  namespace?: string;
  listen?: string;
  overwriteDeclarations?: boolean;
};

/** Programs that run a script: the namespace comes from the script (or package) they are given, not from them. */
const RUNNERS = new Set([
  "node",
  "nodejs",
  "deno",
  "bun",
  "npx",
  "pnpx",
  "bunx",
  "uvx",
  "uv",
  "python",
  "python3",
  "pipx",
]);

/** A name made of a path, package or host: letters, digits, - and single _, at most 64. */
function cleanName(text: string): string {
  const base = text.replace(/^@[^/]+\//, "");
  const stem = basename(base, extname(base)).replace(/[^A-Za-z0-9-]+/g, "_");
  return stem
    .replace(/^_+|_+$/g, "")
    .slice(0, 64)
    .replace(/_+$/, "");
}

/**
 * The namespace an upstream gets when `--namespace` is not given: the script or package a runner is given
 * (`node server.js` → `server`, `npx -y @acme/mcp-water` → `mcp-water`), else the program's name, else the URL's
 * host (`http://water.local:3001/mcp` → `water`); "upstream" when none of these yields a name.
 */
export function defaultNamespace(target: GatewayTarget): string {
  let candidate: string | undefined;
  if ("url" in target) {
    const host = new URL(target.url).hostname;
    // An address says nothing about the server: 127.0.0.1 would make the namespace "127".
    candidate = /^[0-9.]+$|:/.test(host) ? undefined : host.split(".")[0];
  } else {
    const [program = "", ...args] = target.command;
    candidate = RUNNERS.has(basename(program)) ? args.filter((a) => !a.startsWith("-")).at(-1) : program;
  }
  const name = candidate === undefined ? "" : cleanName(candidate);
  return name === "" ? "upstream" : name;
}

/** The single-upstream flags as a one-upstream gateway: plain tool names for the agent, a ledger namespace always. */
export function gatewayFromFlags(flags: SingleUpstreamFlags): GatewayConfig {
  const namespace = flags.namespace ?? defaultNamespace(flags.target);
  return {
    source: "flags",
    listen: flags.listen ?? null,
    prefixNames: false,
    overwriteDeclarations: flags.overwriteDeclarations ?? false,
    upstreams: [
      {
        name: namespace,
        namespace,
        target: flags.target,
        annotations: resolve(flags.annotations),
        include: null,
        exclude: [],
        pin: "warn",
        rate: null,
        toolRates: {},
      },
    ],
  };
}
