// The in-process library's guarded call on a store-backed session: batched (concurrent agents sharing group commits)
// against one agent alone (every write its own commit) and a bare prepared insert, measured in rounds in one run.
import type { LedgerDb } from "../../src/store/sqlite/db.js";
import { type GuardedTool, openSession, quantityTool, withSession } from "../../src/index.js";

/** The tools of bench:guard, as library tools: a reading of area in km^2 and runoff_depth with a sourced area. */
export function libraryTools(): { readArea: GuardedTool; runoff: GuardedTool } {
  const readArea = quantityTool({ name: "read_area", params: {}, returns: { unit: "km**2" } }, () => 29000);
  const runoff = quantityTool(
    { name: "runoff_depth", params: { discharge: { unit: "m**3/s" }, area: { unit: "km**2", sourced: true } } },
    ({ discharge }) => discharge.value,
  ) as unknown as GuardedTool;
  return { readArea: readArea as unknown as GuardedTool, runoff };
}

/**
 * Microseconds of wall time per guarded call (`invoke`: arguments checked and committed, the body run, the result
 * labelled and committed), and this process's CPU microseconds per call (user + system: the figure that load on a
 * shared machine does not inflate), when `agents` store-backed sessions each make `perAgent` calls one after another.
 */
export async function libraryCallUs(
  store: LedgerDb,
  agents: number,
  perAgent: number,
): Promise<{ wall: number; cpu: number }> {
  const { readArea, runoff } = libraryTools();
  const sessions = Array.from({ length: agents }, () =>
    openSession({ context: "What is the runoff depth?", ledger: { store } }),
  );
  await Promise.all(sessions.map((s) => withSession(s, () => readArea.invoke({}))));
  const agent = (s: (typeof sessions)[number]) =>
    withSession(s, async () => {
      for (let i = 0; i < perAgent; i += 1) {
        const out = await runoff.invoke({ discharge: "1250 cfs", area: 29000 });
        if (out.isError) throw new Error(`unexpected refusal: ${JSON.stringify(out.content)}`);
      }
    });
  const t0 = process.hrtime.bigint();
  const c0 = process.cpuUsage();
  await Promise.all(sessions.map(agent));
  const c = process.cpuUsage(c0);
  const n = agents * perAgent;
  return { wall: Number(process.hrtime.bigint() - t0) / 1e3 / n, cpu: (c.user + c.system) / n };
}

/** The median of a list of numbers. */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}
