// The guarding proxy: an MCP server to the agent, an MCP client to the upstream, the ledger deciding every annotated call.
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { PROTOCOL_VERSION_META_KEY } from "@modelcontextprotocol/server";
import { ErrorCode, McpError, type MessageExtraInfo } from "@modelcontextprotocol/sdk/types.js";
import {
  type McpRequestInfo,
  noTelemetry,
  traceParentOf,
  type Telemetry,
  type TraceParent,
} from "../telemetry/telemetry.js";
import { DEFAULT_LIMITS, jsonDepth } from "../limits.js";
import { VERSION } from "../version.js";
import type { Annotations } from "./annotations.js";
import { FrontConnection, type Reply } from "./front.js";
import type { ProxyLedger } from "./ledger-client.js";
import { toolErrorReply } from "./results.js";
import { type CallRequest, GuardedCalls } from "./guarded-call.js";
import { advertisedTool, ledgerDeclaration } from "./rewrite.js";
import type { HeaderScan } from "./param-headers.js";
import { Upstream, UpstreamExited, UpstreamUnavailable, type RawTool } from "./upstream.js";
import { errorText, type UpstreamTarget } from "./upstream-link.js";
import { PipeBroken, PipeTimeout, type PipeAnswer, type PipeInterceptor, type PipeRequestInfo } from "./pipe.js";
import { RoundStates } from "./rounds.js";
import { sessionKeyOf, type SessionKey } from "./session-key.js";
import type { PlannedDeclaration } from "../gateway/clash.js";

/** What a proxy is built from. */
export type ProxyOptions = {
  /** The command to spawn, or the Streamable HTTP URL to connect to. */
  upstream: UpstreamTarget;
  annotations: Annotations;
  ledger: ProxyLedger;
  /** Where diagnostics go (stderr in the CLI: stdout is the protocol). */
  log?: (line: string) => void;
  /** How long one upstream request may take, in milliseconds (the SDK's 60 s by default). */
  timeoutMs?: number;
  /** Declares and records the upstream's tools as `<namespace>.<tool>` in the ledger, apart from the team's own tools. */
  namespace?: string;
  /** Where each guarded call's execute_tool span goes (none by default). */
  telemetry?: Telemetry;
  /** Deepest nesting of objects and arrays a call's arguments may have (AGENT_LEDGER_MAX_DEPTH, 64 by default). */
  maxDepth?: number;
  /** The upstream's name in a gateway: tool errors about reaching it then start "upstream 'NAME': ". */
  upstreamName?: string;
  /**
   * Decides which of the planned declarations are made (the gateway's clash check, which throws on a clash); all of
   * them without it.
   */
  planDeclarations?: (planned: PlannedDeclaration[]) => Promise<PlannedDeclaration[]>;
};

/**
 * How a gateway sends one round of a call (its progress token, its input_required rounds): `send` replaces the plain
 * forward (`extra.requestState` is the upstream's state of a later round), `requestState` is the agent's.
 */
export type GatewayRound = {
  requestState?: unknown;
  send?: (forwarded: Record<string, unknown>, extra?: { requestState?: unknown }) => Promise<Reply>;
};

// API.md: label values are at most 256 characters.
const labelValue = (s: string) => (s.length > 256 ? `${s.slice(0, 255)}…` : s);

// At most this many keyed ledger sessions are remembered; the one unused the longest is forgotten first.
const MAX_KEYED_SESSIONS = 10_000;

/** The client name a 2026-07-28 request's envelope gives (`_meta["io.modelcontextprotocol/clientInfo"].name`). */
function envelopeClient(params: Record<string, unknown>): string | undefined {
  const info = (params._meta as Record<string, unknown> | undefined)?.["io.modelcontextprotocol/clientInfo"];
  const name = (info as { name?: unknown } | undefined)?.name;
  return typeof name === "string" ? name : undefined;
}

/** A string in the request's `_meta`, or undefined. */
function metaString(params: Record<string, unknown>, name: string): string | undefined {
  const v = (params._meta as Record<string, unknown> | undefined)?.[name];
  return typeof v === "string" ? v : undefined;
}

const invalidCall: Reply = {
  error: {
    code: ErrorCode.InvalidParams,
    message: "Invalid tools/call request: params.name must be a string and params.arguments an object",
  },
};

/** One upstream, one ledger, any number of agent connections; each connection (each initialize) is its own session. */
export class GuardedProxy {
  readonly upstream: Upstream;
  private readonly annotations: Annotations;
  private readonly ledger: ProxyLedger;
  private readonly log: (line: string) => void;
  private readonly fronts = new Set<FrontConnection>();
  private readonly telemetry: Telemetry;
  private readonly maxDepth: number;
  /** The name a tool is declared and recorded under in the ledger (the agent and the upstream keep the plain name). */
  private readonly ledgerName: (tool: string) => string;
  /** Ledger sessions by session key (see session-key.ts), most recently used last. */
  private readonly sessions = new Map<string, Promise<string>>();
  /** Clients already told that their requests carry no session key. */
  private readonly toldNoKey = new Set<string>();
  private readonly rounds = new RoundStates();
  private readonly calls: GuardedCalls;
  private stdioConnections = 0;
  private declaredListing = "";
  private readonly timeoutMs: number;
  private readonly upstreamName: string | undefined;
  private readonly planDeclarations: ProxyOptions["planDeclarations"];

  constructor(options: ProxyOptions) {
    const ns = options.namespace;
    this.upstreamName = options.upstreamName;
    this.planDeclarations = options.planDeclarations;
    this.ledgerName = ns ? (tool) => `${ns}.${tool}` : (tool) => tool;
    this.annotations = options.annotations;
    this.ledger = options.ledger;
    this.log = options.log ?? (() => undefined);
    this.telemetry = options.telemetry ?? noTelemetry;
    this.maxDepth = options.maxDepth ?? DEFAULT_LIMITS.depth;
    // The SDK's own default request timeout.
    this.timeoutMs = options.timeoutMs ?? 60_000;
    this.upstream = new Upstream(options.upstream, {
      onTools: (tools) => this.declare(tools),
      log: this.log,
      timeoutMs: options.timeoutMs,
    });
    this.calls = new GuardedCalls({
      upstream: this.upstream,
      ledger: this.ledger,
      rounds: this.rounds,
      telemetry: this.telemetry,
      ledgerName: this.ledgerName,
      named: (message: string) => this.named(message),
    });
  }

  /** Starts the upstream and declares the annotated tools; fails when either cannot be done. */
  async start(): Promise<RawTool[]> {
    const tools = await this.upstream.start();
    const listed = new Set(tools.map((t) => t.name));
    for (const name of this.annotations.keys()) {
      if (!listed.has(name)) this.log(`annotations name tool '${name}', which the upstream server does not list`);
    }
    return tools;
  }

  /**
   * Serves one agent connection over `transport`; `labels` adds labels to its ledger sessions when they open, and
   * `mcpSessionId` names the 2025-11-25 HTTP session the connection is (none: a stdio or in-process connection).
   */
  async connect(
    transport: Transport,
    options: { labels?: () => Record<string, string>; mcpSessionId?: () => string | undefined; modern?: boolean } = {},
  ): Promise<FrontConnection> {
    const connection = ++this.stdioConnections;
    let initialized = 0;
    const front: FrontConnection = new FrontConnection(transport, {
      serverInfo: { name: "agent-ledger", version: VERSION },
      instructions: await this.upstream.instructions().catch(() => undefined),
      modern: options.modern,
      // Requests the proxy does not change (resources, prompts, completion, logging) go to the upstream as they are.
      capabilities: await this.upstream.capabilities().catch(() => undefined),
      fallback: (method, params) => this.relayOther(method, params),
      // Each initialize starts a new session, opened at the first guarded call so a connection that only lists tools leaves no row.
      onInitialized: () => {
        initialized++;
      },
      onClose: () => this.fronts.delete(front),
      handlers: {
        "tools/list": async () => ({ result: { tools: await this.listTools() } }),
        "tools/call": ({ params, extra, id }) => {
          const { name, arguments: args } = params;
          const badArgs = args !== undefined && (typeof args !== "object" || args === null || Array.isArray(args));
          if (typeof name !== "string" || badArgs) return Promise.resolve(invalidCall);
          const deep = this.tooDeep(name, args);
          if (deep) return Promise.resolve(deep);
          const mcpSessionId = options.mcpSessionId?.();
          const key = sessionKeyOf(params._meta as Record<string, unknown> | undefined, {
            mcpSessionId,
            stdio: mcpSessionId === undefined && !options.modern ? `${connection}.${initialized}` : undefined,
          });
          // A 2026-07-28 client names itself in each request's envelope rather than in an initialize.
          const client = envelopeClient(params) ?? front.clientVersionName;
          const labels = () => ({ ...(client ? { client } : {}), ...options.labels?.() });
          return this.callTool(name, {
            args: (args ?? {}) as Record<string, unknown>,
            sessionId: () => this.sessionFor(key, labels()),
            parent: traceParentOfRequest(params, extra),
            send: (forwarded) => this.forward(name, forwarded),
            mcp: {
              method: "tools/call",
              protocolVersion: front.protocolVersionOf(params),
              sessionId: mcpSessionId,
              requestId: id,
            },
          });
        },
      },
    });
    await front.start();
    this.fronts.add(front);
    return front;
  }

  /**
   * The interceptor of a relayed agent connection (see pipe.ts): tools/list gains units, tools/call is guarded; all
   * else passes. `mcpSessionId` names the 2025-11-25 session the pipe serves, if it serves one.
   */
  interceptor(
    connection: { mcpSessionId?: () => string | undefined; labels?: Record<string, string> } = {},
  ): PipeInterceptor {
    let client: string | undefined;
    return (req, send) => {
      if (req.method === "initialize") {
        const info = (req.params.clientInfo ?? {}) as { name?: unknown };
        client = typeof info.name === "string" ? info.name : undefined;
        return null;
      }
      if (req.method === "tools/list") return this.relayToolsList(send, req.params);
      if (req.method !== "tools/call") return null;
      const meta = req.params._meta as Record<string, unknown> | undefined;
      const clientName = envelopeClient(req.params) ?? client;
      const mcpSessionId = connection.mcpSessionId?.();
      const key = sessionKeyOf(meta, { mcpSessionId });
      const labels: Record<string, string> = { ...(clientName ? { client: clientName } : {}), ...connection.labels };
      if (mcpSessionId) labels.mcp_session = mcpSessionId;
      return this.relayToolCall(req, send, key, labels);
    };
  }

  /** The upstream's own requestState inside a later round's (the proxy wraps a guarded call's); as given otherwise. */
  upstreamRequestState(requestState: unknown): unknown {
    return this.rounds.unwrap(requestState)?.upstream ?? requestState;
  }

  /** A request the proxy does not change, relayed over the one upstream connection; a lost upstream is an error. */
  private async relayOther(method: string, params: Record<string, unknown>): Promise<Reply> {
    try {
      return await this.upstream.relay(method, params);
    } catch (e) {
      if (e instanceof McpError) throw e;
      throw new McpError(ErrorCode.InternalError, errorText(e));
    }
  }

  /** The ledger session of `key` (`extra` adds or replaces labels), opened at its first guarded call (a key of kind `none` opens one every time). */
  sessionFor(key: SessionKey, extra: Record<string, string>): Promise<string> {
    const labels: Record<string, string> = {
      source: "mcp-proxy",
      upstream: labelValue(this.upstream.commandLine),
      "mcp.session_key": key.kind,
    };
    for (const [k, v] of Object.entries(extra)) labels[k] = labelValue(v);
    if (key.key === null) {
      const who = extra.client ?? "a client that gave no name";
      if (!this.toldNoKey.has(who)) {
        if (this.toldNoKey.size < 10_000) this.toldNoKey.add(who);
        this.log(
          `${who} sent a tools/call with no session key (no _meta "dev.agent-ledger/session", no traceparent, no ` +
            "Mcp-Session-Id): each such call is its own ledger session, so carry-over between its calls is not checked",
        );
      }
      return this.ledger.openSession(labels);
    }
    const known = this.sessions.get(key.key);
    if (known) {
      // Kept in order of use, so the first is the one unused the longest.
      this.sessions.delete(key.key);
      this.sessions.set(key.key, known);
      return known;
    }
    const opening = this.ledger.openSession(labels);
    this.sessions.set(key.key, opening);
    if (this.sessions.size > MAX_KEYED_SESSIONS) this.sessions.delete(this.sessions.keys().next().value!);
    opening.catch(() => {
      if (this.sessions.get(key.key!) === opening) this.sessions.delete(key.key!);
    });
    return opening;
  }

  /** The `x-mcp-header` declarations of a tool as the upstream last listed it (SEP-2243). */
  headerScan(tool: string): HeaderScan {
    return this.upstream.headerScan(tool);
  }

  private async relayToolsList(
    send: (params: Record<string, unknown>) => Promise<PipeAnswer>,
    params: Record<string, unknown>,
  ): Promise<PipeAnswer> {
    const answer = await send(params);
    if (answer.error !== undefined || typeof answer.result !== "object" || answer.result === null) return answer;
    const result = answer.result as { tools?: unknown };
    if (!Array.isArray(result.tools)) return answer;
    const tools = result.tools as RawTool[];
    // The page as the upstream lists it now: its tools' Mcp-Param headers are made and checked from it.
    this.upstream.remember(tools);
    const annotated = tools.filter((t) => this.annotations.has(t.name));
    const listing = JSON.stringify(annotated);
    if (listing !== this.declaredListing) {
      await this.declare(annotated);
      this.declaredListing = listing;
    }
    return { result: { ...result, tools: tools.map((t) => advertisedTool(t, this.annotations.get(t.name))) } };
  }

  private relayToolCall(
    req: PipeRequestInfo,
    send: (params: Record<string, unknown>, timeoutMs?: number) => Promise<PipeAnswer>,
    key: SessionKey,
    labels: Record<string, string>,
  ): Promise<PipeAnswer> {
    const { name, arguments: args } = req.params;
    const badArgs = args !== undefined && (typeof args !== "object" || args === null || Array.isArray(args));
    if (typeof name !== "string" || badArgs) return Promise.resolve(invalidCall);
    const deep = this.tooDeep(name, args);
    if (deep) return Promise.resolve(deep);
    const annotation = this.annotations.get(name);
    const timeout = this.timeoutMs;
    if (!annotation) return this.timed(name, () => send(req.params, timeout));
    const parent = traceParentOf((h) => req.request?.headers.get(h)) ?? traceParentOf((h) => metaString(req.params, h));
    const relay = (forwarded: Record<string, unknown>, extra: Record<string, unknown> = {}): Promise<Reply> =>
      this.timed(name, () => send({ ...req.params, ...extra, arguments: forwarded }, timeout));
    const round = this.rounds.unwrap(req.params.requestState);
    if (round !== null) return this.calls.laterRound(annotation, round, relay);
    const meta = req.params._meta as Record<string, unknown> | undefined;
    const version = req.request?.headers.get("mcp-protocol-version") ?? meta?.[PROTOCOL_VERSION_META_KEY];
    const mcp: McpRequestInfo = {
      method: "tools/call",
      protocolVersion: typeof version === "string" ? version : undefined,
      sessionId: req.request?.headers.get("mcp-session-id") ?? undefined,
      requestId: req.id,
    };
    const session = () => this.sessionFor(key, labels);
    return this.callTool(name, {
      args: (args ?? {}) as Record<string, unknown>,
      sessionId: session,
      parent,
      send: relay,
      mcp,
    });
  }

  /** A relayed tools/call whose link broke or whose answer did not come in time, as the tool error the agent reads. */
  private async timed(name: string, run: () => Promise<PipeAnswer>): Promise<PipeAnswer> {
    try {
      return await run();
    } catch (e) {
      if (e instanceof PipeTimeout)
        return toolErrorReply(
          `the upstream server did not answer ${name} in time; the call may or may not have completed`,
        );
      if (e instanceof PipeBroken)
        return toolErrorReply(`${e.message} while running ${name}; the call may or may not have completed`);
      throw e;
    }
  }

  /** Guards a call of an annotated tool (GuardedCalls); a tool without an annotation is sent as it came. */
  private callTool(name: string, request: CallRequest): Promise<Reply> {
    const annotation = this.annotations.get(name);
    if (!annotation) return request.send(request.args);
    return this.calls.call(annotation, request);
  }

  /** Closes every agent connection, then the upstream and the ledger. */
  async close(): Promise<void> {
    await Promise.allSettled([...this.fronts].map((f) => f.close()));
    await this.upstream.close();
    await this.ledger.close();
  }

  private async declare(tools: RawTool[]): Promise<void> {
    const byName = new Map(tools.map((t) => [t.name, t]));
    let planned: PlannedDeclaration[] = [...this.annotations.values()].map((a) => ({
      name: this.ledgerName(a.name),
      upstream: this.upstreamName ?? this.upstream.commandLine,
      tool: a.name,
      declaration: ledgerDeclaration(a, byName.get(a.name)),
    }));
    if (this.planDeclarations) planned = await this.planDeclarations(planned);
    for (const p of planned) {
      try {
        await this.ledger.declare(p.name, p.declaration);
      } catch (e) {
        throw new Error(`cannot declare ${p.tool} to the ledger (${this.ledger.where}): ${errorText(e)}`, { cause: e });
      }
    }
  }

  /** The too_deep tool error for arguments nested over the limit, or null. */
  tooDeep(name: string, args: unknown): Reply | null {
    // Refused before anything recurses into them: 5,000 levels once overflowed the stack somewhere downstream.
    const depth = jsonDepth(args ?? {});
    if (depth <= this.maxDepth) return null;
    return toolErrorReply(
      `[too_deep] the arguments of ${name} hold objects and arrays nested ${depth} levels deep, over the limit ` +
        `of ${this.maxDepth}: send flatter arguments (AGENT_LEDGER_MAX_DEPTH sets the limit)`,
    );
  }

  /** A message about reaching the upstream, naming it when it has a gateway name. */
  private named(message: string): string {
    return this.upstreamName === undefined ? message : `upstream '${this.upstreamName}': ${message}`;
  }

  /**
   * Guards one tools/call of the upstream's own tool `name` in the ledger session `sessionId` answers: the gateway's
   * entry, which keeps one session across its upstreams.
   */
  guardCall(
    name: string,
    args: Record<string, unknown>,
    sessionId: () => Promise<string>,
    parent: TraceParent | undefined,
    mcp?: McpRequestInfo,
    digest?: string,
    round: GatewayRound = {},
  ): Promise<Reply> {
    const send = round.send ?? ((forwarded: Record<string, unknown>) => this.forward(name, forwarded));
    const annotation = this.annotations.get(name);
    // A later input_required round of a guarded call goes on as the call recorded at its first round.
    const earlier = annotation ? this.rounds.unwrap(round.requestState) : null;
    if (annotation && earlier !== null) return this.calls.laterRound(annotation, earlier, send);
    return this.callTool(name, { args, sessionId, parent, send, mcp, digest });
  }

  private async listTools(): Promise<RawTool[]> {
    try {
      return (await this.upstream.listTools()).map((t) => advertisedTool(t, this.annotations.get(t.name)));
    } catch (e) {
      if (e instanceof McpError) throw e;
      throw new McpError(ErrorCode.InternalError, errorText(e));
    }
  }

  /**
   * Relays a call upstream (`meta` as its `_meta`) and answers its result or JSON-RPC error as it came; a crash or a
   * timeout becomes a tool error.
   */
  async forward(name: string, args: Record<string, unknown>, meta?: Record<string, unknown>): Promise<Reply> {
    try {
      return await this.upstream.callTool(name, args, meta);
    } catch (e) {
      if (e instanceof UpstreamExited || e instanceof UpstreamUnavailable) {
        this.log(e.message);
        return toolErrorReply(
          this.named(e instanceof UpstreamExited ? e.message : `${e.message}; the call to ${name} was not completed`),
        );
      }
      if (e instanceof McpError && e.code === ErrorCode.RequestTimeout) {
        return toolErrorReply(
          this.named(`the upstream server did not answer ${name} in time; the call may or may not have completed`),
        );
      }
      throw e;
    }
  }
}

/**
 * The agent's trace context: the HTTP request's traceparent header (Streamable HTTP), else `_meta.traceparent` in the
 * request, where stdio clients put it.
 */
function traceParentOfRequest(
  params: Record<string, unknown>,
  extra: MessageExtraInfo | undefined,
): TraceParent | undefined {
  const metaObj = params._meta as Record<string, unknown> | undefined;
  const header = (name: string) => {
    const v = extra?.requestInfo?.headers[name];
    return Array.isArray(v) ? v[0] : v;
  };
  const meta = (name: string) => {
    const v = metaObj?.[name];
    return typeof v === "string" ? v : undefined;
  };
  return traceParentOf(header) ?? traceParentOf(meta);
}
