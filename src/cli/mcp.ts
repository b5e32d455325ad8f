// `agent-ledger mcp`: guard an existing MCP server. Spawns it over stdio (or connects to it over Streamable HTTP),
// serves the guarded tools on this process's stdin/stdout (or at http://HOST:PORT/mcp), and records every annotated
// call in the ledger. Diagnostics go to stderr only.
import { StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import type { Command } from "commander";
import { loadAnnotations } from "../mcp/annotations.js";
import { LocalLedger, RemoteLedger, type ProxyLedger } from "../mcp/ledger-client.js";
import { listenProxy, openFrontProblem, parseListen, type ListenAddress } from "../mcp/listen.js";
import { GuardedProxy } from "../mcp/proxy.js";
import { GatewayProxy } from "../mcp/gateway-proxy.js";
import { GatewayConfigError, loadGatewayConfig } from "../gateway/config.js";
import type { UpstreamTarget } from "../mcp/upstream-link.js";
import { loadTelemetry, noTelemetry } from "../telemetry/telemetry.js";
import { ConfigError, loadConfig, type Config } from "../config.js";
import { CliError } from "./shared.js";

type Flags = {
  annotations?: string;
  config?: string;
  overwriteDeclarations?: boolean;
  ledgerUrl?: string;
  token?: string;
  db?: string;
  timeout?: string;
  namespace?: string;
  upstreamUrl?: string;
  upstreamHeader: string[];
  listen?: string;
  listenToken?: string;
  maxChildren?: string;
  childIdle?: string;
};

const log = (line: string) => process.stderr.write(`agent-ledger mcp: ${line}\n`);

// The upstream inherits the proxy's environment (its API keys, its PATH), except the ledger's own secret.
const upstreamEnv = (): NodeJS.ProcessEnv => {
  const { AGENT_LEDGER_ADMIN_TOKEN: _secret, ...env } = process.env;
  return env;
};

const HTTP_URL = /^https?:\/\/\S+$/;
// RFC 9110 field-name token characters; a value may not hold CR or LF (header injection).
const HEADER = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+):[ \t]*([^\r\n]*?)[ \t]*$/;

/** The settings, with --db and --listen-token winning over AGENT_LEDGER_DB and AGENT_LEDGER_LISTEN_TOKEN. */
function mcpConfig(flags: Flags): Config {
  try {
    return loadConfig(process.env, { AGENT_LEDGER_DB: flags.db, AGENT_LEDGER_LISTEN_TOKEN: flags.listenToken });
  } catch (e) {
    // The flag's value is checked under the variable's name; say which one the user gave.
    if (e instanceof ConfigError && e.field === "AGENT_LEDGER_LISTEN_TOKEN" && flags.listenToken !== undefined)
      throw new CliError(e.message.replace("AGENT_LEDGER_LISTEN_TOKEN", "--listen-token"), 2);
    throw e;
  }
}

async function openLedger(flags: Flags, config: Config): Promise<ProxyLedger> {
  if (flags.ledgerUrl) {
    if (flags.db)
      throw new CliError("give either --db (a local database) or --ledger-url (a running service), not both", 2);
    if (!flags.token) throw new CliError("--ledger-url needs --token, a bearer token of the team to record into", 2);
    if (!HTTP_URL.test(flags.ledgerUrl))
      throw new CliError(
        `--ledger-url must be an http(s) URL such as http://127.0.0.1:8787, received '${flags.ledgerUrl}'`,
        2,
      );
    return new RemoteLedger(flags.ledgerUrl, flags.token);
  }
  if (flags.token) throw new CliError("--token goes with --ledger-url; a local database needs no token", 2);
  const ledger = await LocalLedger.open(config.dbFile, undefined, {
    sync: config.sync,
    undeclaredTools: config.undeclaredTools,
  });
  ledger.startBackground();
  return ledger;
}

function timeoutMs(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const s = Number(text);
  if (!Number.isFinite(s) || s <= 0)
    throw new CliError(`--timeout must be a positive number of seconds, received '${text}'`, 2);
  return Math.round(s * 1000);
}

/** --max-children and --child-idle as listenProxy's options (a command upstream behind --listen runs once per agent). */
function childOptions(flags: Flags, command: boolean, listen: boolean): { maxChildren?: number; childIdleMs?: number } {
  if ((flags.maxChildren !== undefined || flags.childIdle !== undefined) && !(command && listen))
    throw new CliError("--max-children and --child-idle go with --listen and an upstream command after --", 2);
  const out: { maxChildren?: number; childIdleMs?: number } = {};
  if (flags.maxChildren !== undefined) {
    const n = Number(flags.maxChildren);
    if (!Number.isInteger(n) || n < 1 || n > 1000)
      throw new CliError(`--max-children must be a whole number from 1 to 1000, received '${flags.maxChildren}'`, 2);
    out.maxChildren = n;
  }
  if (flags.childIdle !== undefined) {
    const s = Number(flags.childIdle);
    if (!Number.isFinite(s) || s <= 0)
      throw new CliError(`--child-idle must be a positive number of seconds, received '${flags.childIdle}'`, 2);
    out.childIdleMs = Math.round(s * 1000);
  }
  return out;
}

/** The upstream named by the flags: a command after --, or --upstream-url with its headers; never both. */
export function upstreamTarget(
  command: string[],
  flags: Pick<Flags, "upstreamUrl" | "upstreamHeader">,
): UpstreamTarget {
  const headerFlags = flags.upstreamHeader ?? [];
  if (flags.upstreamUrl === undefined) {
    if (headerFlags.length > 0) throw new CliError("--upstream-header goes with --upstream-url", 2);
    if (command.length === 0)
      throw new CliError(
        "give the upstream server command after --, as in: agent-ledger mcp --annotations water.toml -- node server.js" +
          ", or its URL with --upstream-url http://host:port/mcp",
        2,
      );
    return { command: command[0]!, args: command.slice(1), env: upstreamEnv() };
  }
  if (command.length > 0)
    throw new CliError(`give either --upstream-url or a command after --, not both (received '${command[0]}')`, 2);
  if (!HTTP_URL.test(flags.upstreamUrl) || !URL.canParse(flags.upstreamUrl))
    throw new CliError(
      `--upstream-url must be an http(s) URL such as http://127.0.0.1:3000/mcp, received '${flags.upstreamUrl}'`,
      2,
    );
  const headers: Record<string, string> = {};
  for (const h of headerFlags) {
    const m = HEADER.exec(h);
    if (!m)
      throw new CliError(
        `--upstream-header takes "Name: value", such as "Authorization: Bearer abc", received '${h.replace(/[\r\n]/g, " ")}'`,
        2,
      );
    headers[m[1]!] = m[2]!;
  }
  return { url: flags.upstreamUrl, headers };
}

function listenAddress(text: string | undefined): ListenAddress | null {
  if (text === undefined) return null;
  const address = parseListen(text);
  if (!address)
    throw new CliError(`--listen takes HOST:PORT, such as 127.0.0.1:8788 or [::1]:8788, received '${text}'`, 2);
  return address;
}

/** The flags that name a single upstream, which a gateway file replaces. */
const SINGLE_FLAGS = ["annotations", "upstreamUrl", "namespace"] as const;

/** `agent-ledger mcp --config gateway.toml`: several upstreams behind one front (stdio, or the file's listen). */
async function runGateway(command: string[], flags: Flags & { config: string }): Promise<void> {
  const given = SINGLE_FLAGS.filter((f) => flags[f] !== undefined);
  if (command.length > 0 || given.length > 0 || flags.upstreamHeader.length > 0)
    throw new CliError(
      "--config names the upstreams in its file: give no --annotations, --upstream-url, --upstream-header, --namespace " +
        "or command after -- with it",
      2,
    );
  let gateway: ReturnType<typeof loadGatewayConfig>;
  try {
    gateway = loadGatewayConfig(flags.config);
  } catch (e) {
    if (e instanceof GatewayConfigError) throw new CliError(e.message, 2);
    throw e;
  }
  if (flags.overwriteDeclarations) gateway = { ...gateway, overwriteDeclarations: true };
  const listen = listenAddress(flags.listen ?? gateway.listen ?? undefined);
  if (flags.listenToken !== undefined && listen === null)
    throw new CliError("--listen-token goes with --listen: it is the token clients of the HTTP front must send", 2);
  const config = mcpConfig(flags);
  const openFront = listen === null ? null : openFrontProblem(listen, config.listenToken);
  if (openFront !== null) throw new CliError(openFront, 2);
  const ledger = await openLedger(flags, config);
  const telemetry = ledger instanceof LocalLedger ? await loadTelemetry(config.telemetry, log) : noTelemetry;
  const proxy = new GatewayProxy({
    config: gateway,
    ledger,
    log,
    telemetry,
    timeoutMs: timeoutMs(flags.timeout),
    maxDepth: config.limits.depth,
    env: upstreamEnv(),
  });
  try {
    await proxy.start();
  } catch (e) {
    await proxy.close().catch(() => undefined);
    throw new CliError((e as Error).message);
  }
  const names = gateway.upstreams.map((u) => u.name).join(", ");
  log(
    `gateway of ${gateway.upstreams.length} upstream(s) (${names}) from ${gateway.source}, recording into ${ledger.where}`,
  );
  await serveFront(proxy, listen, config, telemetry.shutdown.bind(telemetry));
}

async function run(command: string[], flags: Flags): Promise<void> {
  if (flags.config !== undefined) {
    childOptions(flags, false, false);
    return runGateway(command, { ...flags, config: flags.config });
  }
  if (flags.overwriteDeclarations)
    throw new CliError("--overwrite-declarations goes with --config (a gateway of upstreams)", 2);
  if (flags.annotations === undefined)
    throw new CliError(
      "give --annotations <file> (the units of one upstream's tools), or --config <file> for a gateway of several",
      2,
    );
  const upstream = upstreamTarget(command, flags);
  const listen = listenAddress(flags.listen);
  const children = childOptions(flags, !("url" in upstream), listen !== null);
  if (flags.listenToken !== undefined && listen === null)
    throw new CliError("--listen-token goes with --listen: it is the token clients of the HTTP front must send", 2);
  const config = mcpConfig(flags);
  const openFront = listen === null ? null : openFrontProblem(listen, config.listenToken);
  if (openFront !== null) throw new CliError(openFront, 2);
  const annotations = loadAnnotations(flags.annotations);
  const timeout = timeoutMs(flags.timeout);
  if (flags.namespace !== undefined && !/^[A-Za-z0-9_-]{1,64}$/.test(flags.namespace)) {
    throw new CliError(
      `--namespace takes letters, digits, _ and - (at most 64), such as "water", received '${flags.namespace}'`,
      2,
    );
  }
  const ledger = await openLedger(flags, config);
  // Recording into a service, the service exports the span (the agent's traceparent is passed on to it).
  const telemetry = ledger instanceof LocalLedger ? await loadTelemetry(config.telemetry, log) : noTelemetry;
  const proxy = new GuardedProxy({
    telemetry,
    upstream,
    annotations,
    ledger,
    log,
    timeoutMs: timeout,
    namespace: flags.namespace,
    maxDepth: config.limits.depth,
  });
  try {
    await proxy.start();
  } catch (e) {
    await proxy.close().catch(() => undefined);
    throw new CliError((e as Error).message);
  }
  log(
    `guarding ${annotations.size} annotated tool(s) of '${proxy.upstream.commandLine}', recording into ${ledger.where}`,
  );
  await serveFront(proxy, listen, config, () => telemetry.shutdown(), children);
}

/** Serves the proxy on stdin/stdout or at `listen` until a signal or the client's end of stdin. */
async function serveFront(
  proxy: GuardedProxy | GatewayProxy,
  listen: ListenAddress | null,
  config: Config,
  shutdown: () => Promise<void>,
  children: { maxChildren?: number; childIdleMs?: number } = {},
): Promise<void> {
  let close: () => Promise<void> = () => proxy.close().finally(() => shutdown());
  if (listen) {
    const front = await listenProxy(proxy, listen, { log, token: config.listenToken, ...children }).catch(
      async (e: Error) => {
        await proxy.close().catch(() => undefined);
        throw new CliError(e.message);
      },
    );
    close = async () => {
      await front.close();
      await proxy.close();
      await shutdown();
    };
    const asking = config.listenToken === undefined ? "" : ", to clients sending the bearer token";
    log(`serving the guarded tools over Streamable HTTP at ${front.url}${asking}`);
  }
  let stopping = false;
  const stop = (why: string) => {
    if (stopping) return;
    stopping = true;
    log(`${why}: closing`);
    const force = setTimeout(() => process.exit(1), 6000);
    force.unref();
    void close().finally(() => process.exit(0));
  };
  process.once("SIGTERM", () => stop("SIGTERM"));
  process.once("SIGINT", () => stop("SIGINT"));
  if (listen) return;
  // The agent closing our stdin ends the session; the upstream child would otherwise keep this process alive.
  process.stdin.once("end", () => stop("the client closed the connection"));
  await proxy.connect(new StdioServerTransport());
}

const collect = (value: string, previous: string[]): string[] => [...previous, value];

/** Adds `mcp` and its flags. */
export function configure(cmd: Command): void {
  cmd
    .usage(
      "(--annotations <file> | --config <gateway.toml>) [--db <file> | --ledger-url <url> --token <token>] " +
        "[--listen <host:port> [--listen-token <token>]] " +
        "(--upstream-url <url> [--upstream-header <h>]... | -- <command> [args...])",
    )
    .option("--annotations <file>", "TOML (or .json) file declaring the units of the upstream's tools")
    .option("--config <file>", "serve several upstreams behind one front, as this gateway TOML file names them")
    .option(
      "--overwrite-declarations",
      "with --config: replace a team's declaration of the same ledger name instead of refusing to start",
    )
    .option(
      "--db <file>",
      "record into this SQLite file or postgres:// URL (default AGENT_LEDGER_DB or ./data/ledger.db)",
    )
    .option("--ledger-url <url>", "record into a running agent-ledger service instead")
    .option("--token <token>", "bearer token for --ledger-url")
    .option("--timeout <seconds>", "how long one upstream request may take (default 60)")
    .option(
      "--namespace <name>",
      "record the upstream's tools as <name>.<tool>, apart from the team's own tools of the same name",
    )
    .option("--upstream-url <url>", "guard the MCP server at this Streamable HTTP URL instead of a command")
    .option("--upstream-header <header>", 'send "Name: value" with every upstream request (repeatable)', collect, [])
    .option("--listen <host:port>", "serve the guarded tools at http://host:port/mcp instead of stdin/stdout")
    .option(
      "--listen-token <token>",
      "require this bearer token of every client of --listen (or set AGENT_LEDGER_LISTEN_TOKEN); needed beyond loopback",
    )
    .option(
      "--max-children <n>",
      "with --listen and a command: at most this many upstream children, one per agent session (default 16)",
    )
    .option("--child-idle <seconds>", "with --listen and a command: stop a child unused this long (default 600)")
    .argument("[command...]", "the upstream MCP server's command line, after --")
    .action((command: string[], flags: Flags) => run(command, flags));
}
