// The guarding proxy: an MCP server to the agent, an MCP client to the upstream, the ledger deciding every annotated call.
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ErrorCode, McpError, type CallToolResult, type MessageExtraInfo } from "@modelcontextprotocol/sdk/types.js";
import { noTelemetry, nowMs, traceParentOf, type Telemetry, type TraceParent } from "../telemetry/telemetry.js";
import { DEFAULT_LIMITS, jsonDepth } from "../limits.js";
import { VERSION } from "../version.js";
import type { Annotations, ToolAnnotation } from "./annotations.js";
import { FrontConnection, type Reply } from "./front.js";
import type { LedgerCallAnswer, LedgerResultAnswer, ProxyLedger } from "./ledger-client.js";
import { DeclarationDrift, forwardedArgs, labelledResult, readResult, resultSnippet, toolError } from "./results.js";
import { advertisedTool, labelling, ledgerDeclaration } from "./rewrite.js";
import { Upstream, UpstreamExited, UpstreamUnavailable, type RawTool } from "./upstream.js";
import type { UpstreamTarget } from "./upstream-link.js";

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
};

// API.md: label values are at most 256 characters.
const labelValue = (s: string) => (s.length > 256 ? `${s.slice(0, 255)}…` : s);

const errorText = (e: unknown) => (e instanceof Error ? e.message : String(e));

const invalidCall: Reply = {
  error: {
    code: ErrorCode.InvalidParams,
    message: "Invalid tools/call request: params.name must be a string and params.arguments an object",
  },
};

/** A tool error as the reply to a tools/call. */
const toolErrorReply = (text: string): Reply => ({ result: toolError(text) });

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

  constructor(options: ProxyOptions) {
    const ns = options.namespace;
    this.ledgerName = ns ? (tool) => `${ns}.${tool}` : (tool) => tool;
    this.annotations = options.annotations;
    this.ledger = options.ledger;
    this.log = options.log ?? (() => undefined);
    this.telemetry = options.telemetry ?? noTelemetry;
    this.maxDepth = options.maxDepth ?? DEFAULT_LIMITS.depth;
    this.upstream = new Upstream(options.upstream, {
      onTools: (tools) => this.declare(tools),
      log: this.log,
      timeoutMs: options.timeoutMs,
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

  /** Serves one agent connection over `transport`; `labels` adds labels to its ledger session when it opens. */
  async connect(
    transport: Transport,
    options: { labels?: () => Record<string, string> } = {},
  ): Promise<FrontConnection> {
    let session: Promise<string> | null = null;
    const sessionId = () => {
      if (!session) {
        const labels: Record<string, string> = { source: "mcp-proxy", upstream: labelValue(this.upstream.commandLine) };
        const client = front.clientVersionName;
        if (client) labels.client = labelValue(client);
        for (const [k, v] of Object.entries(options.labels?.() ?? {})) labels[k] = labelValue(v);
        const opening = this.ledger.openSession(labels);
        session = opening;
        opening.catch(() => {
          if (session === opening) session = null;
        });
      }
      return session;
    };
    const front: FrontConnection = new FrontConnection(transport, {
      serverInfo: { name: "agent-ledger", version: VERSION },
      instructions: await this.upstream.instructions().catch(() => undefined),
      // Each initialize starts a new session, opened at the first guarded call so a connection that only lists tools leaves no row.
      onInitialized: () => {
        session = null;
      },
      onClose: () => this.fronts.delete(front),
      handlers: {
        "tools/list": async () => ({ result: { tools: await this.listTools() } }),
        "tools/call": ({ params, extra }) => {
          const { name, arguments: args } = params;
          const badArgs = args !== undefined && (typeof args !== "object" || args === null || Array.isArray(args));
          if (typeof name !== "string" || badArgs) return Promise.resolve(invalidCall);
          // Refused before anything recurses into them: 5,000 levels once overflowed the stack somewhere downstream.
          const depth = jsonDepth(args ?? {});
          if (depth > this.maxDepth)
            return Promise.resolve(
              toolErrorReply(
                `[too_deep] the arguments of ${name} hold objects and arrays nested ${depth} levels deep, over the limit ` +
                  `of ${this.maxDepth}: send flatter arguments (AGENT_LEDGER_MAX_DEPTH sets the limit)`,
              ),
            );
          return this.callTool(
            name,
            (args ?? {}) as Record<string, unknown>,
            sessionId,
            traceParentOfRequest(params, extra),
          );
        },
      },
    });
    await front.start();
    this.fronts.add(front);
    return front;
  }

  /** Closes every agent connection, then the upstream and the ledger. */
  async close(): Promise<void> {
    await Promise.allSettled([...this.fronts].map((f) => f.close()));
    await this.upstream.close();
    await this.ledger.close();
  }

  private async declare(tools: RawTool[]): Promise<void> {
    const byName = new Map(tools.map((t) => [t.name, t]));
    for (const a of this.annotations.values()) {
      try {
        await this.ledger.declare(this.ledgerName(a.name), ledgerDeclaration(a, byName.get(a.name)));
      } catch (e) {
        throw new Error(`cannot declare ${a.name} to the ledger (${this.ledger.where}): ${errorText(e)}`, { cause: e });
      }
    }
  }

  private async listTools(): Promise<RawTool[]> {
    try {
      return (await this.upstream.listTools()).map((t) => advertisedTool(t, this.annotations.get(t.name)));
    } catch (e) {
      if (e instanceof McpError) throw e;
      throw new McpError(ErrorCode.InternalError, errorText(e));
    }
  }

  private async callTool(
    name: string,
    args: Record<string, unknown>,
    sessionId: () => Promise<string>,
    parent: TraceParent | undefined,
  ): Promise<Reply> {
    const annotation = this.annotations.get(name);
    if (!annotation) return this.forward(name, args);
    const startMs = nowMs();
    let traced: { session: string; verdict: LedgerCallAnswer } | null = null;
    try {
      return await this.guardedCall(annotation, args, sessionId, parent, (session, verdict) => {
        traced = { session, verdict };
      });
    } finally {
      if (traced !== null && this.telemetry.enabled) {
        const { session, verdict } = traced as { session: string; verdict: LedgerCallAnswer };
        this.telemetry.toolCall({
          tool: name,
          callId: verdict.call_id,
          sessionId: session,
          outcome: verdict.outcome ?? (verdict.ok ? (verdict.violations.length > 0 ? "warned" : "ok") : "refused"),
          violationCodes: verdict.violations.map((v) => v.code),
          startMs,
          endMs: nowMs(),
          parent,
        });
      }
    }
  }

  private async guardedCall(
    annotation: ToolAnnotation,
    args: Record<string, unknown>,
    sessionId: () => Promise<string>,
    parent: TraceParent | undefined,
    checked: (session: string, verdict: LedgerCallAnswer) => void,
  ): Promise<Reply> {
    const name = annotation.name;
    try {
      // The first call after a respawn waits for the fresh declarations.
      await this.upstream.start();
    } catch (e) {
      return toolErrorReply(`${errorText(e)}; the call to ${name} was not completed`);
    }
    let session: string;
    let verdict: LedgerCallAnswer;
    try {
      session = await sessionId();
      verdict = await this.ledger.call(session, this.ledgerName(name), args, parent);
    } catch (e) {
      return toolErrorReply(
        `the ledger (${this.ledger.where}) could not record this call to ${name}, so it was not sent to the upstream server: ${errorText(e)}`,
      );
    }
    checked(session, verdict);
    if (!verdict.ok) return toolErrorReply(verdict.violations.map((v) => v.repair).join("\n"));
    if (!verdict.guarded)
      return toolErrorReply(
        `the ledger (${this.ledger.where}) holds no declaration for ${name}, so the call was not sent unguarded`,
      );
    let forwarded: Record<string, unknown>;
    try {
      forwarded = forwardedArgs(args, verdict.args, annotation.compiled);
    } catch (e) {
      if (!(e instanceof DeclarationDrift)) throw e;
      // Declaring again makes the next call use the annotation; this one is not sent.
      await this.upstream.listTools().catch(() => undefined);
      return toolErrorReply(
        `${e.message}: ${name} was declared again in ${this.ledger.where} by another client, so the call was not sent; send it again`,
      );
    }
    const reply = await this.forward(name, forwarded);
    if (reply.error !== undefined) return reply;
    const result = asToolResult(reply.result);
    if (result === null)
      return toolErrorReply(
        `${name} answered ${JSON.stringify(reply.result)?.slice(0, 200)}, which is not a tool result (an object with a content array)`,
      );
    return result.isError
      ? { result }
      : { result: await this.labelResult(annotation, session, verdict.call_id, result) };
  }

  private async labelResult(
    annotation: ToolAnnotation,
    session: string,
    callId: string,
    result: CallToolResult,
  ): Promise<CallToolResult> {
    const returns = labelling(annotation.compiled);
    if (!returns) return result;
    const read = readResult(result, returns);
    let answer: LedgerResultAnswer;
    try {
      answer = await this.ledger.result(session, callId, read.value);
    } catch (e) {
      return toolError(
        `${annotation.name} answered, but the ledger (${this.ledger.where}) could not record the result, so it is not passed on: ${errorText(e)}`,
      );
    }
    if (!answer.ok) {
      return toolError(
        `${annotation.name} answered ${JSON.stringify(resultSnippet(result))}, which cannot be read as the result its annotation declares:\n` +
          answer.violations.map((v) => v.repair).join("\n"),
      );
    }
    return labelledResult(result, answer.result, read.extra);
  }

  /**
   * Relays a call upstream and answers its result or JSON-RPC error as it came; a crash or a timeout becomes a tool
   * error.
   */
  private async forward(name: string, args: Record<string, unknown>): Promise<Reply> {
    try {
      return await this.upstream.callTool(name, args);
    } catch (e) {
      if (e instanceof UpstreamExited || e instanceof UpstreamUnavailable) {
        this.log(e.message);
        return toolErrorReply(
          e instanceof UpstreamExited ? e.message : `${e.message}; the call to ${name} was not completed`,
        );
      }
      if (e instanceof McpError && e.code === ErrorCode.RequestTimeout) {
        return toolErrorReply(
          `the upstream server did not answer ${name} in time; the call may or may not have completed`,
        );
      }
      throw e;
    }
  }
}

/** A relayed result read as a tool result (content defaults to none, as the SDK's schema has it); null when it is not one. */
function asToolResult(raw: unknown): CallToolResult | null {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return null;
  const r = raw as CallToolResult;
  if (r.content === undefined) return { ...r, content: [] };
  return Array.isArray(r.content) ? r : null;
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
