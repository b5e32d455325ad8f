// A process of many agents writing through a library store can checkpoint its WAL on a worker thread, as `serve`
// does, so no agent's commit copies the log back into the file on the event loop.
import { afterEach, describe, expect, it } from "vitest";
import {
  checkpointInBackground,
  type GuardedTool,
  openDb,
  openSession,
  quantityTool,
  withSession,
} from "../../src/index.js";
import { BACKSTOP_PAGES } from "../../src/store/sqlite/checkpointer.js";
import { WAL_AUTOCHECKPOINT_PAGES } from "../../src/store/sqlite/db.js";
import { autocheckpoint, ledgerFile, removeLedgerFiles } from "../store/sqlite/ledger-files.js";

afterEach(removeLedgerFiles);

const runoff = quantityTool(
  { name: "runoff_depth", params: { discharge: { unit: "m**3/s" }, area: { unit: "km**2" } } },
  ({ discharge }) => discharge.value,
) as unknown as GuardedTool;

/** `agents` store-backed sessions each making `calls` guarded calls, all at once (their writes group-committed). */
async function agentsCall(db: ReturnType<typeof openDb>, agents: number, calls: number): Promise<void> {
  const sessions = Array.from({ length: agents }, () => openSession({ ledger: { store: db } }));
  await Promise.all(
    sessions.map((s) =>
      withSession(s, async () => {
        for (let i = 0; i < calls; i += 1) {
          const out = await runoff.invoke({ discharge: "1250 cfs", area: 29000 + i });
          if (out.isError) throw new Error(JSON.stringify(out));
        }
      }),
    ),
  );
}

describe("checkpointInBackground", () => {
  it("checkpoints a library store's log on its own thread while agents call, and hands checkpoints back when stopped", async () => {
    const { db } = ledgerFile();
    const cp = checkpointInBackground(db)!;
    // The connection's own autocheckpoint is only a backstop while the thread runs.
    expect(autocheckpoint(db)).toBe(BACKSTOP_PAGES);
    await agentsCall(db, 32, 40);
    for (let i = 0; i < 100 && cp.checkpoints() === 0; i += 1) await new Promise((r) => setTimeout(r, 50));
    expect(cp.checkpoints()).toBeGreaterThanOrEqual(1);
    await cp.stop();
    expect(autocheckpoint(db)).toBe(WAL_AUTOCHECKPOINT_PAGES);
    expect(db.sqlite.prepare("SELECT count(*) FROM calls WHERE tool = 'runoff_depth'").pluck().get()).toBe(1280);
    db.close();
  });

  it("answers the running checkpointer when asked again, and a new one after stop", async () => {
    const { db } = ledgerFile();
    const first = checkpointInBackground(db)!;
    expect(checkpointInBackground(db)).toBe(first);
    await first.stop();
    const second = checkpointInBackground(db)!;
    expect(second).not.toBe(first);
    expect(autocheckpoint(db)).toBe(BACKSTOP_PAGES);
    await second.stop();
    expect(autocheckpoint(db)).toBe(WAL_AUTOCHECKPOINT_PAGES);
    db.close();
  });

  it("answers null for an in-memory ledger, which has no log to checkpoint", () => {
    const db = openDb(":memory:");
    expect(checkpointInBackground(db)).toBeNull();
    db.close();
  });
});
