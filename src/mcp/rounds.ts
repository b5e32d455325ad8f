// A guarded call that the upstream answers with `input_required` (MCP 2026-07-28 multi round-trip) comes back as a new
// request carrying the agent's input responses and the `requestState` of the last round. The proxy records the call once,
// at its first round: it wraps the upstream's requestState in its own, signed, which carries the ledger call, its
// session and the converted arguments, so a later round is sent on as the same call and never recorded again.
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

/** What a later round needs of the first: the ledger session and call, the arguments sent upstream, the upstream's state. */
export type RoundState = { session: string; callId: string; args: Record<string, unknown>; upstream?: string };

const PREFIX = "agent-ledger.1.";

/** True for a result that asks the agent for input before it completes. */
export function isInputRequired(result: unknown): result is Record<string, unknown> {
  return (
    typeof result === "object" &&
    result !== null &&
    (result as { resultType?: unknown }).resultType === "input_required"
  );
}

/** Signs and reads the proxy's requestState; the key lives as long as the process (a restart ends open rounds). */
export class RoundStates {
  private readonly key = randomBytes(32);

  /** The result with its requestState replaced by the proxy's own, which carries `state`. */
  wrap(result: Record<string, unknown>, state: Omit<RoundState, "upstream">): Record<string, unknown> {
    const upstream = typeof result.requestState === "string" ? result.requestState : undefined;
    const body = Buffer.from(JSON.stringify({ ...state, upstream })).toString("base64url");
    return { ...result, requestState: `${PREFIX}${body}.${this.sign(body)}` };
  }

  /** The state of an earlier round from the request's requestState; null when it is not the proxy's or was altered. */
  unwrap(requestState: unknown): RoundState | null {
    if (typeof requestState !== "string" || !requestState.startsWith(PREFIX)) return null;
    const [body, mac] = requestState.slice(PREFIX.length).split(".");
    if (!body || !mac) return null;
    const expected = Buffer.from(this.sign(body));
    const given = Buffer.from(mac);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
    try {
      const s = JSON.parse(Buffer.from(body, "base64url").toString("utf8")) as RoundState;
      return typeof s.session === "string" && typeof s.callId === "string" && typeof s.args === "object" ? s : null;
    } catch {
      return null;
    }
  }

  private sign(body: string): string {
    return createHmac("sha256", this.key).update(body).digest("base64url");
  }
}
