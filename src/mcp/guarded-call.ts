// One guarded tool call through the proxy: the ledger's verdict, the call sent upstream once accepted (from inside the
// transaction that records it when the ledger can tell early), the result recorded and labelled before the agent sees
// it, and an input_required round carried on as the same ledger call. The proxy hands each annotated call here.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { DecidedCall } from "../store/port.js";
import { type McpRequestInfo, nowMs, type Telemetry, type TraceParent } from "../telemetry/telemetry.js";
import type { ToolAnnotation } from "./annotations.js";
import type { Reply } from "./front.js";
import type { LedgerCallAnswer, LedgerResultAnswer, ProxyLedger } from "./ledger-client.js";
import {
  DeclarationDrift,
  forwardedArgs,
  labelledResult,
  readResult,
  resultSnippet,
  toolError,
  toolErrorReply,
} from "./results.js";
import { labelling } from "./rewrite.js";
import { isInputRequired, type RoundStates } from "./rounds.js";
import type { Upstream } from "./upstream.js";
import { errorText } from "./upstream-link.js";

/** What a guarded call uses of its proxy. */
export type GuardedCallContext = {
  upstream: Upstream;
  ledger: ProxyLedger;
  rounds: RoundStates;
  telemetry: Telemetry;
  /** The name a tool is declared and recorded under in the ledger. */
  ledgerName: (tool: string) => string;
  /** A message about reaching the upstream, naming it when it has a gateway name. */
  named: (message: string) => string;
};

/** One tools/call as the proxy hands it on. */
export type CallRequest = {
  args: Record<string, unknown>;
  /** The ledger session the call is recorded in, found (or opened) when the call is first checked. */
  sessionId: () => Promise<string>;
  parent: TraceParent | undefined;
  /** Sends the call upstream with the arguments given. */
  send: (forwarded: Record<string, unknown>) => Promise<Reply>;
  /** The MCP attributes of the call's span. */
  mcp?: McpRequestInfo;
  /** The digest of the tool's definition as the gateway pinned it. */
  digest?: string;
};

/** The guarded calls of one proxy. */
export class GuardedCalls {
  constructor(private readonly ctx: GuardedCallContext) {}

  /**
   * Guards one call of an annotated tool: checked and recorded in the ledger session `sessionId` answers, sent with its
   * arguments in the annotation's units once accepted, its result recorded and labelled; an execute_tool span follows.
   */
  async call(annotation: ToolAnnotation, request: CallRequest): Promise<Reply> {
    const { parent, mcp } = request;
    const name = annotation.name;
    const startMs = nowMs();
    let traced: { session: string; verdict: LedgerCallAnswer } | null = null;
    let toolError = false;
    try {
      const reply = await this.guarded(annotation, request, (session, verdict) => {
        traced = { session, verdict };
      });
      toolError = asToolResult(reply.result)?.isError === true;
      return reply;
    } finally {
      if (traced !== null && this.ctx.telemetry.enabled) {
        const { session, verdict } = traced as { session: string; verdict: LedgerCallAnswer };
        this.ctx.telemetry.toolCall({
          tool: name,
          callId: verdict.call_id,
          sessionId: session,
          outcome: verdict.outcome ?? (verdict.ok ? (verdict.violations.length > 0 ? "warned" : "ok") : "refused"),
          violationCodes: verdict.violations.map((v) => v.code),
          startMs,
          endMs: nowMs(),
          parent,
          mcp,
          toolError,
        });
      }
    }
  }

  private async guarded(
    annotation: ToolAnnotation,
    { args, sessionId, parent, send, digest }: CallRequest,
    checked: (session: string, verdict: LedgerCallAnswer) => void,
  ): Promise<Reply> {
    const name = annotation.name;
    try {
      // The first call after a respawn waits for the fresh declarations.
      if (!this.ctx.upstream.started) await this.ctx.upstream.start();
    } catch (e) {
      return toolErrorReply(this.ctx.named(`${errorText(e)}; the call to ${name} was not completed`));
    }
    // An accepted call is sent as soon as the ledger has decided it, in the transaction that records it, so the
    // upstream works while the call's rows are written and committed (CallOptions.decided). A ledger that cannot tell
    // the verdict early (a remote service, PostgreSQL) answers it, and the call is sent then.
    const early: { told: boolean; sent: Sent | DeclarationDrift | null } = { told: false, sent: null };
    const decided = (v: DecidedCall) => {
      if (early.told) return;
      early.told = true;
      if (v.ok && v.guarded) early.sent = sendChecked(annotation, args, v.args, send);
    };
    let session: string;
    let verdict: LedgerCallAnswer;
    try {
      session = await sessionId();
      verdict = await this.ctx.ledger.call(session, this.ctx.ledgerName(name), args, parent, digest, decided);
    } catch (e) {
      if (early.sent === null || early.sent instanceof DeclarationDrift)
        return toolErrorReply(
          `the ledger (${this.ctx.ledger.where}) could not record this call to ${name}, so it was not sent to the upstream server: ${errorText(e)}`,
        );
      early.sent.reply.catch(() => undefined);
      return toolErrorReply(
        `the ledger (${this.ctx.ledger.where}) could not record this call to ${name} after it was sent to the upstream ` +
          `server, so its answer is not passed on; the call may or may not have completed: ${errorText(e)}. ` +
          `Check whether it took effect upstream before sending it again.`,
      );
    }
    checked(session, verdict);
    // A verdict told early and then decided again the other way (a group commit run again) is the one recorded.
    if (!verdict.ok || !verdict.guarded) (early.sent as Sent | null)?.reply?.catch(() => undefined);
    if (!verdict.ok) return toolErrorReply(verdict.violations.map((v) => v.repair).join("\n"));
    if (!verdict.guarded)
      return toolErrorReply(
        `the ledger (${this.ctx.ledger.where}) holds no declaration for ${name}, so the call was not sent unguarded`,
      );
    const sent = early.sent ?? sendChecked(annotation, args, verdict.args, send);
    if (sent instanceof DeclarationDrift) {
      // Declaring again makes the next call use the annotation; this one is not sent.
      await this.ctx.upstream.listTools().catch(() => undefined);
      return toolErrorReply(
        `${sent.message}: ${name} was declared again in ${this.ctx.ledger.where} by another client, so the call was not sent; send it again`,
      );
    }
    const { forwarded } = sent;
    const reply = await sent.reply;
    if (reply.error !== undefined) return reply;
    // Input asked of the agent first (MCP 2026-07-28): the later rounds carry the call in the proxy's requestState.
    if (isInputRequired(reply.result))
      return { result: this.ctx.rounds.wrap(reply.result, { session, callId: verdict.call_id, args: forwarded }) };
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
      answer = await this.ctx.ledger.result(session, callId, read.value);
    } catch (e) {
      return toolError(
        `${annotation.name} answered, but the ledger (${this.ctx.ledger.where}) could not record the result, so it is not passed on: ${errorText(e)}`,
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

  /** A later round of a call answered input_required: sent on as the same ledger call, with the upstream's own state. */
  async laterRound(
    annotation: ToolAnnotation,
    round: { session: string; callId: string; args: Record<string, unknown>; upstream?: string },
    relay: (forwarded: Record<string, unknown>, extra?: Record<string, unknown>) => Promise<Reply>,
  ): Promise<Reply> {
    const reply = await relay(round.args, { requestState: round.upstream });
    if (reply.error !== undefined) return reply;
    if (isInputRequired(reply.result)) return { result: this.ctx.rounds.wrap(reply.result, round) };
    const result = asToolResult(reply.result);
    if (result === null || result.isError) return reply;
    return { result: await this.labelResult(annotation, round.session, round.callId, result) };
  }
}

/** A call on its way upstream: the arguments it was sent with and the upstream's reply to come. */
type Sent = { forwarded: Record<string, unknown>; reply: Promise<Reply> };

/**
 * Sends an accepted call with its checked arguments in the annotation's units; the DeclarationDrift, not sent, when
 * the ledger checked them against another declaration than the annotation.
 */
function sendChecked(
  annotation: ToolAnnotation,
  args: Record<string, unknown>,
  checkedArgs: Record<string, unknown>,
  send: (forwarded: Record<string, unknown>) => Promise<Reply>,
): Sent | DeclarationDrift {
  let forwarded: Record<string, unknown>;
  try {
    forwarded = forwardedArgs(args, checkedArgs, annotation.compiled);
  } catch (e) {
    if (e instanceof DeclarationDrift) return e;
    throw e;
  }
  let reply: Promise<Reply>;
  try {
    reply = send(forwarded);
  } catch (e) {
    reply = Promise.reject(e);
  }
  return { forwarded, reply };
}

/** A relayed result read as a tool result (content defaults to none, as the SDK's schema has it); null when it is not one. */
function asToolResult(raw: unknown): CallToolResult | null {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return null;
  const r = raw as CallToolResult;
  if (r.content === undefined) return { ...r, content: [] };
  return Array.isArray(r.content) ? r : null;
}
