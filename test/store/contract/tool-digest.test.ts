// Store contract: every stored call keeps the digest of the upstream definition it was checked against (calls.tool_digest),
// on the locked path, the remembered-session path and (PostgreSQL) the group commit of concurrent calls.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LedgerStore } from "../../../src/store/port.js";
import { enginesUnderTest, freshTeam, settableClock } from "./engines.js";

const READ = { params: { site: {} }, returns: { unit: "cfs" } };
const digest = (n: number) => n.toString(16).padStart(64, "0");

describe.each(await enginesUnderTest())("$name store: tool_digest of each call", (engine) => {
  let store: LedgerStore;
  beforeAll(async () => {
    store = await engine.open(settableClock("2026-03-02T09:00:00.000Z"));
  });
  afterAll(() => store.close());

  it("stores the digest given with each call, and null for a call given none", async () => {
    const teamId = await freshTeam(store);
    await store.tools.put(teamId, "hydro.read_discharge", READ);
    const s = await store.sessions.create(teamId, {});
    await store.calls.call(teamId, s.id, "hydro.read_discharge", { site: "1" }, { toolDigest: digest(1) });
    await store.calls.call(teamId, s.id, "hydro.read_discharge", { site: "2" }, { toolDigest: digest(2) });
    await store.calls.call(teamId, s.id, "hydro.read_discharge", { site: "3" });
    const rows = await store.calls.list(teamId, s.id);
    expect(rows.map((r) => r.toolDigest)).toEqual([digest(1), digest(2), null]);
  });

  it("keeps each call's own digest when calls of many sessions are written at once", async () => {
    const teamId = await freshTeam(store);
    await store.tools.put(teamId, "hydro.read_discharge", READ);
    const sessions = await Promise.all(Array.from({ length: 12 }, () => store.sessions.create(teamId, {})));
    // A first call each, so the sessions are remembered and the next ones can go through the group commit.
    await Promise.all(sessions.map((s) => store.calls.call(teamId, s.id, "hydro.read_discharge", { site: "0" })));
    await Promise.all(
      sessions.map((s, i) =>
        store.calls.call(teamId, s.id, "hydro.read_discharge", { site: String(i) }, { toolDigest: digest(100 + i) }),
      ),
    );
    for (const [i, s] of sessions.entries()) {
      const rows = await store.calls.list(teamId, s.id);
      expect(rows.map((r) => r.toolDigest)).toEqual([null, digest(100 + i)]);
    }
  });
});
