// The gates worker's body: decides large evaluations off the event loop. It reads the ledger through a connection of
// its own (one per database file, read-only by pragma) inside one read transaction, runs the same decision as the
// loop (run-decision.ts), computes the rows to write, and answers them with the history version it read; the loop
// writes them in its IMMEDIATE transaction only if that version is unchanged.
import { statSync } from "node:fs";
import { setPriority } from "node:os";
import { parentPort } from "node:worker_threads";
import Database from "better-sqlite3";
import { withParseMemo } from "../../gates/contract.js";
import { evaluationRows, parseEvaluation } from "../common/evaluation-rows.js";
import type { GatesAnswer, GatesJob } from "./gates-pool.js";
import { PAGE_CACHE_KIB } from "./db.js";
import { decideStored, historyVersion } from "./run-decision.js";

// Deciding a large evaluation is background work: on Linux a thread's nice value is its own, and pid 0 names the
// calling thread, so this lowers only the worker's priority and the request thread keeps its core when both want it.
// Elsewhere it may lower the whole process or be refused, so it is tried only on Linux, and a refusal is ignored.
if (process.platform === "linux") {
  try {
    setPriority(0, 10);
  } catch {
    // Not permitted here: the worker runs at the process's priority.
  }
}

/** Open connections by file, with the inode they were opened on (a restore replaces the file under the same name). */
const open = new Map<string, { db: Database.Database; ino: number }>();
const MAX_OPEN = 4;

function connection(file: string): Database.Database {
  const ino = statSync(file).ino;
  const hit = open.get(file);
  if (hit && hit.ino === ino) return hit.db;
  hit?.db.close();
  open.delete(file);
  if (open.size >= MAX_OPEN) {
    const [oldest, o] = open.entries().next().value as [string, { db: Database.Database }];
    o.db.close();
    open.delete(oldest);
  }
  const db = new Database(file, { fileMustExist: true });
  db.pragma("busy_timeout = 5000");
  db.pragma("query_only = ON");
  // The request thread's page cache, so the history and evidence reads keep their index pages cached here too.
  db.pragma(`cache_size = -${PAGE_CACHE_KIB}`);
  open.set(file, { db, ino });
  return db;
}

/** One job: the decision and its rows, read and decided in one read transaction. */
function run(job: GatesJob): GatesAnswer {
  const db = connection(job.file);
  return withParseMemo(() =>
    db.transaction(() => {
      const parsed = parseEvaluation(job.input);
      const version = historyVersion(db, job.teamId, parsed.taskId);
      const stamp = { id: job.id, at: new Date(job.at), task: parsed.taskId };
      const evaluation = decideStored(db, job.teamId, job.input, job.settings, { datums: job.datums }, stamp);
      return { evaluation, rows: evaluationRows(evaluation, parsed, job.settings), version };
    })(),
  );
}

parentPort?.on("message", (m: { n: number; job: GatesJob }) => {
  try {
    parentPort?.postMessage({ n: m.n, ok: true, answer: run(m.job) });
  } catch (e) {
    parentPort?.postMessage({ n: m.n, ok: false, message: e instanceof Error ? e.message : String(e) });
  }
});
