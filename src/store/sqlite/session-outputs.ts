// A session's outputs as the guard's History port reads them: the scalar returns with a unit that were not refused,
// from this connection's memory of them when it may be trusted (src/store/outputs-memo.ts), else from the indexes.
import type { Database, Statement } from "better-sqlite3";
import type { CrossingDraft } from "../../guard/verdict.js";
import { type History, MemoryHistory, type PriorOutput } from "../../guard/history.js";
import { type OutputsMemo, outputsMemo, REMEMBERED_OUTPUTS } from "./outputs-memo.js";
import { type RawOutput, toOutput } from "../common/session-rows.js";

const OUTPUT_COLUMNS = "call_id, seq, tool, param, value, unit, value_si, dimension, datum, quality";
// An output usable as a source: a scalar return with a unit that was not refused.
const OUTPUT_WHERE =
  "session_id = ? AND direction = 'return' AND unit IS NOT NULL AND value IS NOT NULL AND outcome != 'refused'";

type OutputQuery = "byMagnitude" | "bySi" | "allOutputs";

/** The outputs of the sessions on one SQLite connection, for the History port. */
export class SessionOutputs {
  private readonly s: Record<OutputQuery, Statement>;
  /** `firstOutputs` by limit: a bound LIMIT costs SQLite a re-preparation on every run (about 30 us), a literal none. */
  private readonly firstOutputsBy = new Map<number, Statement>();
  /** This connection's memory of session outputs, shared with every SessionStore on it. */
  private readonly memo: OutputsMemo;

  constructor(private readonly sqlite: Database) {
    this.memo = outputsMemo(sqlite);
    const p = (sql: string) => sqlite.prepare(sql);
    this.s = {
      byMagnitude: p(
        `SELECT ${OUTPUT_COLUMNS} FROM crossings WHERE ${OUTPUT_WHERE} AND value BETWEEN ? AND ? ORDER BY id`,
      ),
      bySi: p(`SELECT ${OUTPUT_COLUMNS} FROM crossings WHERE session_id = ? AND direction = 'return' AND dimension = ? AND value_si BETWEEN ? AND ?
               AND unit IS NOT NULL AND value IS NOT NULL AND outcome != 'refused' ORDER BY id`),
      allOutputs: p(`SELECT ${OUTPUT_COLUMNS} FROM crossings WHERE ${OUTPUT_WHERE} ORDER BY id`),
    };
  }

  /** The connection's data version, read now (PRAGMA data_version). */
  dataVersion(): number {
    return this.memo.dataVersion();
  }

  /**
   * The History port over one session's stored outputs: from memory when it may be trusted, else from the indexes.
   * `dataVersion` is the connection's, read in this step.
   */
  history(sessionId: string, dataVersion = this.memo.dataVersion()): History & { all(): readonly PriorOutput[] } {
    const outputs = this.memo.usable(dataVersion) ? this.remembered(sessionId) : null;
    // Classes, not object literals of arrow functions: tsx names each such function as it is made (keepNames).
    return outputs ? new MemoryHistory(outputs) : new StoredHistory(this, sessionId);
  }

  /** The History port's queries on one session's outputs, for `StoredHistory`. */
  rows(sessionId: string, query: OutputQuery, ...p: unknown[]): PriorOutput[] {
    return (this.s[query].all(sessionId, ...p) as RawOutput[]).map(toOutput);
  }

  /** The first `n` outputs of a session, from the indexes. */
  firstRows(sessionId: string, n: number): PriorOutput[] {
    return (this.firstOutputsStatement(n).all(sessionId) as RawOutput[]).map(toOutput);
  }

  /** Takes in a crossing just written to a session, so a remembered session stays as the database answers it. */
  wrote(sessionId: string, call: { id: string; seq: number; tool: string }, c: CrossingDraft): void {
    this.memo.wrote(sessionId, call, c);
  }

  /**
   * A number that stays the same while nothing but this connection's calls and results has written to the database
   * (no declaration, datum, deletion or rollback, here or in another connection), or null when that cannot be told now
   * (inside a transaction begun outside atomic.ts).
   */
  quietSince(): number | null {
    return this.memo.usable(this.memo.dataVersion()) ? this.memo.generation : null;
  }

  /** Marks this connection's memory of outputs good after a step whose writes all went through its stores. */
  settle(): void {
    this.memo.settle();
  }

  /** A session's outputs as remembered, read from the indexes when they are not (null: too many to remember). */
  private remembered(sessionId: string): PriorOutput[] | null {
    const known = this.memo.get(sessionId);
    if (known !== undefined) return known;
    const read = this.firstOutputsStatement(REMEMBERED_OUTPUTS + 1).all(sessionId) as RawOutput[];
    return this.memo.keep(sessionId, read.map(toOutput));
  }

  /** The first-outputs statement for one limit, prepared once (the guard asks for one fixed number). */
  private firstOutputsStatement(n: number): Statement {
    // SQLite reads a negative LIMIT as none, as the bound parameter did.
    const limit = Math.trunc(n) < 0 ? -1 : Math.trunc(n);
    let st = this.firstOutputsBy.get(limit);
    if (st === undefined) {
      st = this.sqlite.prepare(
        `SELECT ${OUTPUT_COLUMNS} FROM crossings WHERE ${OUTPUT_WHERE} ORDER BY id LIMIT ${limit}`,
      );
      this.firstOutputsBy.set(limit, st);
    }
    return st;
  }
}

/** The History port over one session's stored outputs, read from the indexes. */
class StoredHistory implements History {
  constructor(
    private readonly outputs: SessionOutputs,
    private readonly sessionId: string,
  ) {}

  outputsByMagnitude(lo: number, hi: number): PriorOutput[] {
    return this.outputs.rows(this.sessionId, "byMagnitude", lo, hi);
  }

  outputsBySi(dimension: string, lo: number, hi: number): PriorOutput[] {
    return this.outputs.rows(this.sessionId, "bySi", dimension, lo, hi);
  }

  firstOutputs(n: number): PriorOutput[] {
    return this.outputs.firstRows(this.sessionId, n);
  }

  all(): PriorOutput[] {
    return this.outputs.rows(this.sessionId, "allOutputs");
  }
}
