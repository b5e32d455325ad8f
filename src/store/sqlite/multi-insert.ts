// Many rows per INSERT statement: a largest evaluation writes about 1,000 claim rows and a largest call 1,000 crossing
// rows, and one statement per row costs a statement's step, binding and journal bookkeeping each time. One statement
// of up to ROWS_PER_INSERT rows does the same writes in a fraction of the time.
import type { Database, Statement } from "better-sqlite3";

/** Rows per statement: 100 rows of 24 columns bind 2,400 values, far under SQLite's 32,766. */
export const ROWS_PER_INSERT = 100;

/** Below this many rows, each row is its own statement. */
const FEW_ROWS = 16;

/** INSERT statements of one table and column list, prepared per row count on first use. */
export class MultiInsert {
  private readonly byCount = new Map<number, Statement>();
  private readonly row: string;

  /** `head` is the statement up to VALUES (`INSERT INTO t (a, b)`), `width` the number of columns, `tail` what follows. */
  constructor(
    private readonly sqlite: Database,
    private readonly head: string,
    width: number,
    private readonly tail = "",
  ) {
    this.row = `(${Array.from({ length: width }, () => "?").join(", ")})`;
  }

  /**
   * Inserts `rows` (each one value per column) in order, and answers their rowids in the same order. The rows of one
   * statement get consecutive rowids (each new rowid is one more than the largest, AUTOINCREMENT or not), so they
   * follow from the last one.
   */
  insert(rows: readonly (readonly unknown[])[]): number[] {
    const ids: number[] = [];
    // A few rows go one statement each: SQLite runs a multi-row VALUES as a co-routine, which for a call's two or
    // three crossings cost more than the statements it saves (bench:guard's library call, 2 Dec 2026).
    if (rows.length < FEW_ROWS) {
      const one = this.statement(1);
      for (const r of rows) ids.push(Number(one.run(r).lastInsertRowid));
      return ids;
    }
    for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
      const chunk = rows.slice(i, i + ROWS_PER_INSERT);
      const last = Number(this.statement(chunk.length).run(chunk.flat()).lastInsertRowid);
      for (let k = chunk.length - 1; k >= 0; k--) ids.push(last - k);
    }
    return ids;
  }

  private statement(n: number): Statement {
    let s = this.byCount.get(n);
    if (!s) {
      s = this.sqlite.prepare(
        `${this.head} VALUES ${Array.from({ length: n }, () => this.row).join(", ")} ${this.tail}`,
      );
      this.byCount.set(n, s);
    }
    return s;
  }
}
