// bench:chain:shapes — what SQLite charges for the chain's entry rows in the shapes a next storage format could take,
// apart from everything else a guarded call does: group commits of 32 calls (3 plain rows each, standing in for the
// call and its crossings), each followed by its 5 entries per call written in one shape, on a WAL file with
// synchronous NORMAL as the service opens it. Alternating rounds; medians of the wall time per call, and each shape's
// cost over writing no entries. Synthetic digests: this measures the writes only, never the hashing.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { median } from "../guard/library.js";

const CALLS = 32;
const PER_CALL = 5;
const GROUPS = Number(process.env.BENCH_GROUPS ?? 200);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const TEAM = "team_7f3c2a1b9d";
const DIGEST = Buffer.alloc(32, 3);
/** The values of one plain row, the same for every shape. */
const WORK = [TEAM, "x".repeat(40), "y".repeat(60), 1.5, "z".repeat(30), "2026-12-03T00:00:00.000Z"] as const;
const FP = Buffer.alloc(50, 1);

/**
 * A database file with the entry table as today (`entries`: its primary key, or none; `options`: after its columns),
 * a block table, and a table of plain rows standing in for a call's own writes.
 */
function open(file: string, entries: string, options = ""): Database.Database {
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.exec(`CREATE TABLE ledger_entries (team_id text NOT NULL, seq integer NOT NULL, tbl text NOT NULL,
     row_id text NOT NULL, row_digest blob NOT NULL, prev blob NOT NULL, digest blob NOT NULL, fp blob NOT NULL,
     at text NOT NULL${entries})${options};
   CREATE TABLE ledger_blocks (team_id text NOT NULL, seq integer NOT NULL, at text NOT NULL, entries blob NOT NULL,
     PRIMARY KEY (team_id, seq));
   CREATE TABLE work (id integer PRIMARY KEY, team_id text, a text, b text, c real, d text, e text);`);
  return db;
}

/** A statement per row count, prepared once: `n` rows of `row` in one INSERT. */
function multiRow(db: Database.Database, row: string): (n: number) => Database.Statement {
  const cache = new Map<number, Database.Statement>();
  return (n) => {
    let s = cache.get(n);
    if (!s) {
      s = db.prepare(`INSERT INTO ledger_entries VALUES ${Array.from({ length: n }, () => row).join(", ")}`);
      cache.set(n, s);
    }
    return s;
  };
}

type Shape = { name: string; db: Database.Database; write: (seq: number, at: string) => void };

const dir = mkdtempSync(join(tmpdir(), "bench-shapes-"));
const rows = CALLS * PER_CALL;
const today = open(join(dir, "today.db"), ", PRIMARY KEY (team_id, seq)");
const put = multiRow(today, "(?, ?, ?, ?, ?, ?, ?, ?, ?)");
const shared = open(join(dir, "shared.db"), ", PRIMARY KEY (team_id, seq)");
const putShared = multiRow(shared, "(@team, ?, ?, ?, ?, ?, ?, ?, @at)");
const clustered = open(join(dir, "clustered.db"), ", PRIMARY KEY (team_id, seq)", " WITHOUT ROWID");
const putClustered = multiRow(clustered, "(?, ?, ?, ?, ?, ?, ?, ?, ?)");
const noKey = open(join(dir, "nokey.db"), "");
const putNoKey = multiRow(noKey, "(?, ?, ?, ?, ?, ?, ?, ?, ?)");
const block = open(join(dir, "block.db"), ", PRIMARY KEY (team_id, seq)");
const putBlock = block.prepare("INSERT INTO ledger_blocks VALUES (?, ?, ?, ?)");

/**
 * Entry parameters as the service builds them, 64 rows a statement: 9 a row, or 7 when the team and the time are bound
 * once per statement (`once`).
 */
function entryRows(statement: (n: number) => Database.Statement, seq: number, at: string, once = false): void {
  const params: unknown[] = [];
  for (let i = 0; i < rows; i += 1) {
    if (!once) params.push(TEAM);
    params.push(seq + i, "crossings", String(seq + i));
    params.push(Buffer.from(DIGEST), Buffer.from(DIGEST), Buffer.from(DIGEST), Buffer.from(FP));
    if (!once) params.push(at);
  }
  const width = once ? 7 : 9;
  for (let i = 0; i < params.length; i += 64 * width) {
    const chunk = params.slice(i, i + 64 * width);
    if (once) statement(chunk.length / width).run({ team: TEAM, at }, ...chunk);
    else statement(chunk.length / width).run(...chunk);
  }
}

const shapes: Shape[] = [
  { name: "no entries (the floor)", db: open(join(dir, "none.db"), ""), write: () => undefined },
  { name: "an entry row each (today)", db: today, write: (seq, at) => entryRows(put, seq, at) },
  {
    name: "an entry row each, team and time bound once",
    db: shared,
    write: (seq, at) => entryRows(putShared, seq, at, true),
  },
  {
    name: "an entry row each, WITHOUT ROWID (the key is the table)",
    db: clustered,
    write: (seq, at) => entryRows(putClustered, seq, at),
  },
  { name: "an entry row each, no primary key", db: noKey, write: (seq, at) => entryRows(putNoKey, seq, at) },
  {
    name: "one block row per group and team (same bytes)",
    db: block,
    write: (seq, at) => {
      const b = Buffer.allocUnsafe(rows * (32 * 3 + FP.length + 12));
      let o = 0;
      for (let i = 0; i < rows; i += 1) {
        o += DIGEST.copy(b, o);
        o += DIGEST.copy(b, o);
        o += DIGEST.copy(b, o);
        o += FP.copy(b, o);
        o += b.write(String(seq + i), o, "latin1");
      }
      putBlock.run(TEAM, seq, at, b.subarray(0, o));
    },
  },
];

/** Microseconds of wall time per call over GROUPS group commits of `shape`. */
function round(shape: Shape, seq: { next: number }): number {
  const work = shape.db.prepare("INSERT INTO work (team_id, a, b, c, d, e) VALUES (?, ?, ?, ?, ?, ?)");
  const begin = shape.db.prepare("BEGIN IMMEDIATE");
  const commit = shape.db.prepare("COMMIT");
  const t0 = process.hrtime.bigint();
  for (let g = 0; g < GROUPS; g += 1) {
    begin.run();
    for (let i = 0; i < CALLS * 3; i += 1) work.run(...WORK);
    shape.write(seq.next, new Date().toISOString());
    seq.next += rows;
    commit.run();
  }
  return Number(process.hrtime.bigint() - t0) / 1e3 / (GROUPS * CALLS);
}

const seqs = shapes.map(() => ({ next: 1 }));
for (const [i, s] of shapes.entries()) round(s, seqs[i]!); // warm-up
const times: number[][] = shapes.map(() => []);
for (let r = 0; r < ROUNDS; r += 1) for (const [i, s] of shapes.entries()) times[i]!.push(round(s, seqs[i]!));
const floor = median(times[0]!);
console.log(
  `${ROUNDS} alternating rounds of ${GROUPS} group commits of ${CALLS} calls, ${PER_CALL} entries a call, node ${process.version}\n`,
);
console.log("| entries written as | median us a call | over the floor, us a call |");
console.log("|---|---|---|");
shapes.forEach((s, i) => {
  const m = median(times[i]!);
  console.log(`| ${s.name} | ${m.toFixed(2)} | ${(m - floor).toFixed(2)} |`);
});
for (const s of shapes) s.db.close();
rmSync(dir, { recursive: true, force: true });
