// The WAL checkpointer's thread, in plain JavaScript (a worker starts in Node's own loader, which reads no
// TypeScript on Node 20): its own connection to the file, a PASSIVE checkpoint each time it is asked. A PASSIVE
// checkpoint copies what the log holds back into the file without waiting for, or blocking, any reader or writer.
import { parentPort, workerData } from "node:worker_threads";
import Database from "better-sqlite3";

const db = new Database(workerData.file, { fileMustExist: true });
db.pragma("busy_timeout = 0");
parentPort.on("message", () => {
  try {
    const [r] = db.pragma("wal_checkpoint(PASSIVE)");
    parentPort.postMessage({ ok: true, log: r.log, checkpointed: r.checkpointed });
  } catch (e) {
    parentPort.postMessage({ ok: false, message: e instanceof Error ? e.message : String(e) });
  }
});
