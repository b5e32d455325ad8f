// What an instance remembers of the sessions it serves, so the common guarded call is one round trip. Every write to a
// session (a call, a result) adds one to sessions.write_count in its own transaction, and any instance may write, so a
// remembered session is trusted only while write_count still equals the count it was remembered at: the one-statement
// call writes only `WHERE write_count = remembered`, and a locked transaction skips the outputs read only when the
// count it locked is the remembered one. A stale memory costs a round trip, never a wrong verdict.
import type { PriorOutput } from "../../guard/history.js";
import { type RawOutput, toOutput } from "./rows.js";
import type { Q } from "./tx.js";

/** The session's outputs (the History port's rows) with crossing ids above `after`, in id order. */
export const OUTPUTS = `SELECT id, call_id, seq, tool, param, value, unit, value_si, dimension, datum, quality FROM crossings
  WHERE session_id = $1 AND id > $2 AND direction = 'return' AND unit IS NOT NULL AND value IS NOT NULL AND outcome <> 'refused'
  ORDER BY id`;

/** The SQL condition OUTPUTS applies, for a crossing insert's RETURNING rows. */
export const OUTPUT_FILTER = "direction = 'return' AND unit IS NOT NULL AND value IS NOT NULL AND outcome <> 'refused'";

/** A call stored through this instance, as much of it as storing its result needs. */
export type KnownCall = {
  seq: number;
  tool: string;
  toolVersion: number | null;
  guarded: boolean;
  ok: boolean;
  hasResult: boolean;
};

/** A session as of `writes` writes: its fixed fields, its outputs, and the calls this instance stored in it. */
export type SessionState = {
  teamId: string;
  writes: number;
  context: string;
  enforcement: "enforce" | "warn";
  outputs: PriorOutput[];
  /** The largest crossing id among `outputs` (0 for none): outputs above it are the ones not yet seen. */
  lastId: number;
  calls: Map<string, KnownCall>;
};

/** Outputs read inside a transaction, with the id they were read up to. */
export type ReadOutputs = { outputs: PriorOutput[]; lastId: number };

const MAX_SESSIONS = 20_000;
const MAX_CALLS = 64;

/** Sessions by id, each trusted only at its write count. */
export class SessionCache {
  private readonly byId = new Map<string, SessionState>();

  /** The remembered state of a session of `teamId`, if any. */
  get(teamId: string, sessionId: string): SessionState | undefined {
    const s = this.byId.get(sessionId);
    return s && s.teamId === teamId ? s : undefined;
  }

  /**
   * The session's outputs inside a transaction that holds its row lock at `writes` writes: the remembered ones when
   * the count matches, else the remembered ones topped up by id (every crossing of a session is written under its row
   * lock and identities grow, so rows above the remembered id are exactly the ones not yet seen).
   */
  async outputs(q: Q, teamId: string, sessionId: string, writes: number | null): Promise<ReadOutputs> {
    const hit = this.get(teamId, sessionId);
    if (hit && writes !== null && hit.writes === writes) return { outputs: hit.outputs, lastId: hit.lastId };
    const fresh = await q<RawOutput>(OUTPUTS, [sessionId, hit?.lastId ?? 0]);
    if (fresh.length === 0) return { outputs: hit?.outputs ?? [], lastId: hit?.lastId ?? 0 };
    return { outputs: [...(hit?.outputs ?? []), ...fresh.map(toOutput)], lastId: fresh[fresh.length - 1]!.id };
  }

  /**
   * Remembers a session after a commit. A later state of the same session (another call of this process committed
   * meanwhile) is kept instead; `call`, when given, is added to the calls this instance knows.
   */
  keep(next: Omit<SessionState, "calls">, sessionId: string, call?: { id: string; known: KnownCall }): void {
    const now = this.byId.get(sessionId);
    if (now && now.teamId === next.teamId && now.writes > next.writes) return;
    const calls = now && now.teamId === next.teamId ? now.calls : new Map<string, KnownCall>();
    if (call) {
      calls.set(call.id, call.known);
      if (calls.size > MAX_CALLS) calls.delete(calls.keys().next().value!);
    }
    if (!now && this.byId.size >= MAX_SESSIONS) this.byId.clear();
    this.byId.set(sessionId, { ...next, calls });
  }

  /** Forgets a session (a one-statement write found it changed elsewhere). */
  forget(sessionId: string): void {
    this.byId.delete(sessionId);
  }
}
