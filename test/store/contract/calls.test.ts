// Store contract: sessions, the guarded-call path, crossings, reports, audits, manifests and pack writes.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { replayManifest } from "../../../src/provenance/replay.js";
import type { LedgerStore } from "../../../src/store/port.js";
import { enginesUnderTest, freshTeam, settableClock } from "./engines.js";

const READ = { params: { site: {} }, returns: { unit: "cfs" } };
const RUNOFF = { params: { discharge: { unit: "m**3/s" }, area: { unit: "km**2" } }, returns: { unit: "mm/day" } };
const CARRIED =
  "received the bare number 1250, which this tool reads as 1250 m^3/s, but read_discharge.return returned 1250 cfs and no " +
  'conversion was applied; resend the value with its original unit, as {"value": 1250, "unit": "cfs"}';

describe.each(await enginesUnderTest())("$name store: sessions and guarded calls", (engine) => {
  let store: LedgerStore;
  const clock = settableClock("2026-03-02T09:00:00.000Z");
  beforeAll(async () => {
    store = await engine.open(clock);
  });
  afterAll(() => store.close());

  /** A team with the two README tools and an enforcing session on its question. */
  async function session(labels: Record<string, string> = {}) {
    const teamId = await freshTeam(store);
    await store.tools.put(teamId, "read_discharge", READ);
    await store.tools.put(teamId, "runoff_depth", RUNOFF);
    const s = await store.sessions.create(teamId, { context: "What is the runoff depth at 07374000?", labels });
    return { teamId, sessionId: s.id };
  }

  it("opens a session with its labels and counters at zero, stamped by the store's clock", async () => {
    const teamId = await freshTeam(store);
    clock.set("2026-03-02T09:15:00.000Z");
    const s = await store.sessions.create(teamId, { context: "q", enforcement: "warn", labels: { run: "nightly" } });
    expect(s).toMatchObject({
      context: "q",
      enforcement: "warn",
      labels: { run: "nightly" },
      callCount: 0,
      violationCount: 0,
      blockedCount: 0,
      createdAt: "2026-03-02T09:15:00.000Z",
    });
    expect(await store.sessions.get(teamId, s.id)).toEqual(s);
    expect(await store.sessions.teamOf(s.id)).toBe(teamId);
    expect(await store.sessions.teamOf("nope")).toBeNull();
    await expect(store.sessions.get(await freshTeam(store), s.id)).rejects.toMatchObject({
      code: "not_found",
      message: `no session '${s.id}'`,
    });
  });

  it("labels a result, refuses the carried-over 1250, converts '1250 cfs', and numbers the calls 1, 2, 3", async () => {
    const { teamId, sessionId } = await session();
    const read = await store.calls.call(teamId, sessionId, "read_discharge", { site: "07374000" });
    expect(read).toMatchObject({ seq: 1, ok: true, guarded: true, would_block: false, tool_version: 1 });
    expect(await store.calls.result(teamId, sessionId, read.call_id, 1250)).toEqual({
      ok: true,
      would_block: false,
      result: { value: 1250, unit: "cfs" },
      violations: [],
    });
    const carried = await store.calls.call(teamId, sessionId, "runoff_depth", { discharge: 1250, area: 29000 });
    expect(carried).toMatchObject({ seq: 2, ok: false, would_block: true, args: {} });
    expect(carried.violations).toEqual([
      {
        code: "unconverted_carry_over",
        param: "discharge",
        message: CARRIED,
        repair: `[unconverted_carry_over] for \`discharge\` ${CARRIED}`,
      },
    ]);
    const converted = await store.calls.call(teamId, sessionId, "runoff_depth", { discharge: "1250 cfs", area: 29000 });
    expect(converted.seq).toBe(3);
    expect(converted.ok).toBe(true);
    expect(converted.args).toEqual({
      discharge: { value: 35.39605824, unit: "m^3/s" },
      area: { value: 29000, unit: "km^2" },
    });
    expect(await store.sessions.get(teamId, sessionId)).toMatchObject({
      callCount: 3,
      violationCount: 1,
      blockedCount: 1,
    });
    expect(await store.sessions.report(teamId, sessionId)).toMatchObject({
      calls: 3,
      would_block: 1,
      by_code: { unconverted_carry_over: 1 },
    });
  });

  it("stores a result once: the second is a conflict, an unknown call or session is not found", async () => {
    const { teamId, sessionId } = await session();
    const c = await store.calls.call(teamId, sessionId, "read_discharge", { site: "1" });
    await store.calls.result(teamId, sessionId, c.call_id, 12);
    await expect(store.calls.result(teamId, sessionId, c.call_id, 13)).rejects.toMatchObject({
      code: "conflict",
      message: `call '${c.call_id}' already has a result; a result is stored once`,
    });
    await expect(store.calls.result(teamId, sessionId, "nope", 1)).rejects.toMatchObject({
      code: "not_found",
      message: `no call 'nope' in session '${sessionId}'`,
    });
    await expect(store.calls.call(teamId, "nope", "read_discharge", {})).rejects.toMatchObject({ code: "not_found" });
    await expect(store.calls.call(await freshTeam(store), sessionId, "read_discharge", {})).rejects.toMatchObject({
      code: "not_found",
    });
  });

  it("refuses a result for a call the enforcing session refused (409) and stores it nowhere; a warned call keeps its result", async () => {
    const { teamId, sessionId } = await session();
    const read = await store.calls.call(teamId, sessionId, "read_discharge", { site: "07374000" });
    await store.calls.result(teamId, sessionId, read.call_id, 1250);
    const refused = await store.calls.call(teamId, sessionId, "runoff_depth", { discharge: 1250, area: 29000 });
    expect(refused.ok).toBe(false);
    await expect(store.calls.result(teamId, sessionId, refused.call_id, 12.5)).rejects.toMatchObject({
      code: "conflict",
      message:
        `call '${refused.call_id}' was refused (the session enforces its declarations), so the tool was not to run and a ` +
        "result for it is not stored: correct the arguments as the call's violations say, make a new call, and send that call's result",
    });
    const [stored] = (await store.calls.list(teamId, sessionId, { afterSeq: 1 })).filter(
      (c) => c.id === refused.call_id,
    );
    expect([stored?.resultRaw, stored?.resultAt]).toEqual([null, null]);
    const returns = (await store.crossings.ofSession(teamId, sessionId)).filter((x) => x.callId === refused.call_id);
    expect(returns.map((x) => x.direction)).not.toContain("return");
    // The refused call's 12.5 mm/day is no output a later call or audit can draw on.
    const audit = await store.audits.audit(teamId, sessionId, { answer: "Runoff is 12.5 mm/day." });
    expect(audit.numbers.map((n) => [n.text, n.status])).toEqual([["12.5 mm/day", "unsourced"]]);

    const warned = await store.sessions.create(teamId, { context: "q", enforcement: "warn" });
    const r = await store.calls.call(teamId, warned.id, "read_discharge", { site: "07374000" });
    await store.calls.result(teamId, warned.id, r.call_id, 1250);
    const w = await store.calls.call(teamId, warned.id, "runoff_depth", { discharge: 1250, area: 29000 });
    expect([w.ok, w.would_block]).toEqual([true, true]);
    expect((await store.calls.result(teamId, warned.id, w.call_id, 12.5)).ok).toBe(true);
  });

  it("numbers 30 concurrent calls of one session 1..30 without a gap or a repeat", async () => {
    const { teamId, sessionId } = await session();
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) => store.calls.call(teamId, sessionId, "read_discharge", { site: String(i) })),
    );
    expect(answers.map((a) => a.seq).sort((a, b) => a - b)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    const calls = await store.calls.list(teamId, sessionId);
    expect(calls.map((c) => c.seq)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    expect((await store.sessions.get(teamId, sessionId)).callCount).toBe(30);
  });

  it("lists calls after a sequence number, at most a limit, with their stored raw arguments and results", async () => {
    const { teamId, sessionId } = await session();
    for (const site of ["a", "b", "c"]) {
      const c = await store.calls.call(teamId, sessionId, "read_discharge", { site });
      await store.calls.result(teamId, sessionId, c.call_id, { value: 10, unit: "m**3/s" });
    }
    const page = await store.calls.list(teamId, sessionId, { afterSeq: 1, limit: 1 });
    expect(page).toHaveLength(1);
    expect(page[0]).toMatchObject({
      seq: 2,
      tool: "read_discharge",
      toolVersion: 1,
      guarded: true,
      argsRaw: { site: "b" },
      ok: true,
      violations: [],
      resultRaw: { value: 10, unit: "m**3/s" },
      resultOk: true,
      resultViolations: [],
    });
    await expect(store.calls.list(teamId, "nope")).rejects.toMatchObject({ code: "not_found" });
  });

  it("records each crossing with its raw input, declared-unit and SI magnitudes, and finds it again by magnitude", async () => {
    const { teamId, sessionId } = await session();
    const read = await store.calls.call(teamId, sessionId, "read_discharge", { site: "07374000" });
    await store.calls.result(teamId, sessionId, read.call_id, 1250);
    await store.calls.call(teamId, sessionId, "runoff_depth", { discharge: "1250 cfs", area: 29000 });
    const rows = await store.crossings.ofSession(teamId, sessionId);
    expect(rows.map((x) => [x.seq, x.tool, x.direction, x.param, x.outcome])).toEqual([
      [1, "read_discharge", "param", "site", "passed"],
      [1, "read_discharge", "return", "return", "ok"],
      [2, "runoff_depth", "param", "discharge", "converted"],
      [2, "runoff_depth", "param", "area", "ok"],
    ]);
    const discharge = rows[2]!;
    expect(JSON.parse(discharge.raw)).toBe("1250 cfs");
    expect(discharge).toMatchObject({
      value: 35.39605824,
      unit: "m^3/s",
      valueSi: 35.39605824,
      dimension: "[length]^3 [time]^-1",
      isSeries: false,
      datum: null,
    });
    expect(rows[1]).toMatchObject({ raw: "1250", value: 1250, unit: "cfs", valueSi: 35.39605824 });
    expect(rows[3]).toMatchObject({
      raw: "29000",
      value: 29000,
      unit: "km^2",
      valueSi: 29000000000,
      dimension: "[length]^2",
    });
    expect((await store.crossings.ofSession(teamId, sessionId, { afterSeq: 1 })).map((x) => x.param)).toEqual([
      "discharge",
      "area",
    ]);
    // The same physical magnitude in another unit finds both the returned 1250 cfs and the converted argument.
    const found = await store.crossings.search(teamId, {
      value: 35.39605824,
      unit: "m^3/s",
      tolerance: 1e-6,
      limit: 10,
    });
    expect(found.map((x) => [x.tool, x.param])).toEqual([
      ["runoff_depth", "discharge"],
      ["read_discharge", "return"],
    ]);
    expect(await store.crossings.search(await freshTeam(store), { value: 1250, unit: "cfs", limit: 10 })).toEqual([]);
  });

  it("finds sessions by label, tool and violation code, newest first, with a cursor", async () => {
    const teamId = await freshTeam(store);
    await store.tools.put(teamId, "read_discharge", READ);
    await store.tools.put(teamId, "runoff_depth", RUNOFF);
    const ids: string[] = [];
    for (const [i, run] of ["a", "b", "a"].entries()) {
      clock.set(`2026-03-0${i + 3}T00:00:00.000Z`);
      const s = await store.sessions.create(teamId, { labels: { run } });
      ids.push(s.id);
    }
    const c = await store.calls.call(teamId, ids[0]!, "read_discharge", { site: "1" });
    await store.calls.result(teamId, ids[0]!, c.call_id, 1250);
    await store.calls.call(teamId, ids[0]!, "runoff_depth", { discharge: 1250, area: 1 });
    const list = (f: Parameters<LedgerStore["sessions"]["list"]>[1]) =>
      store.sessions.list(teamId, f).then((rows) => rows.map((s) => ids.indexOf(s.id)));
    expect(await list({ limit: 10 })).toEqual([2, 1, 0]);
    expect(await list({ labels: [{ key: "run", value: "a" }], limit: 10 })).toEqual([2, 0]);
    expect(await list({ tool: "runoff_depth", limit: 10 })).toEqual([0]);
    expect(await list({ code: "unconverted_carry_over", limit: 10 })).toEqual([0]);
    expect(await list({ since: "2026-03-04T00:00:00.000Z", until: "2026-03-05T00:00:00.000Z", limit: 10 })).toEqual([
      1,
    ]);
    // limit + 1 rows: the extra one says another page follows.
    expect(await list({ limit: 1 })).toEqual([2, 1]);
    expect(await list({ limit: 1, cursor: ["2026-03-05T00:00:00.000Z", ids[2]!] })).toEqual([1, 0]);
  });

  it("audits an answer against the session's outputs, with the session's question as context, and lists it", async () => {
    const { teamId, sessionId } = await session();
    const c = await store.calls.call(teamId, sessionId, "read_discharge", { site: "07374000" });
    await store.calls.result(teamId, sessionId, c.call_id, 1250);
    clock.set("2026-03-02T10:00:00.000Z");
    const audit = await store.audits.audit(teamId, sessionId, {
      answer: "Site 07374000 ran at 1250 cfs, not 900 cfs.",
    });
    expect(audit.context).toBe("What is the runoff depth at 07374000?");
    expect(audit.ok).toBe(false);
    // A site number is an identifier, not a quantity: the audit ignores it.
    expect(audit.numbers.map((n) => [n.text, n.status, n.callId])).toEqual([
      ["07374000", "ignored", null],
      ["1250 cfs", "sourced", c.call_id],
      ["900 cfs", "unsourced", null],
    ]);
    const stored = await store.audits.list(teamId, sessionId);
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ id: audit.id, ok: false, createdAt: "2026-03-02T10:00:00.000Z" });
    expect(stored[0]!.items.map((i) => [i.position, i.text, i.status, i.sourceCallId])).toEqual([
      [0, "07374000", "ignored", null],
      [1, "1250 cfs", "sourced", c.call_id],
      [2, "900 cfs", "unsourced", null],
    ]);
    await expect(store.audits.audit(teamId, "nope", { answer: "1" })).rejects.toMatchObject({ code: "not_found" });
  });

  it("loads a manifest that replays identically", async () => {
    const { teamId, sessionId } = await session({ case: "manifest" });
    const c = await store.calls.call(teamId, sessionId, "read_discharge", { site: "07374000" });
    await store.calls.result(teamId, sessionId, c.call_id, 1250);
    await store.calls.call(teamId, sessionId, "runoff_depth", { discharge: 1250, area: 29000 });
    await store.audits.audit(teamId, sessionId, { answer: "It ran at 1250 cfs." });
    const manifest = await store.manifests.load(teamId, sessionId);
    expect(manifest.format).toBe("agent-ledger.manifest/1");
    expect(manifest.calls).toHaveLength(2);
    expect(manifest.tools.map((t) => [t.name, t.version])).toEqual([
      ["read_discharge", 1],
      ["runoff_depth", 1],
    ]);
    expect(replayManifest(manifest)).toMatchObject({ identical: true, calls: 2, audits: 1, difference_count: 0 });
    await expect(store.manifests.load(await freshTeam(store), sessionId)).rejects.toMatchObject({ code: "not_found" });
  });

  it("records pack readings as calls with results, and declares a pack tool only when the team has none", async () => {
    const { teamId, sessionId } = await session();
    await store.packs.record(teamId, sessionId, "usgs.reading", [
      { args: { site: "07374000", parameter: "00060" }, quantity: { value: 1250, unit: "cfs" } },
      { args: { site: "07374000", parameter: "00065" }, quantity: { value: 17.1, unit: "ft", datum: "NAVD88" } },
    ]);
    const calls = await store.calls.list(teamId, sessionId);
    expect(calls.map((c) => [c.seq, c.tool, c.guarded, c.resultOk])).toEqual([
      [1, "usgs.reading", false, true],
      [2, "usgs.reading", false, true],
    ]);
    const decl = { params: { site: {} }, returns: { unit: "cfs" } };
    const answer = await store.packs.call(teamId, sessionId, "usgs.discharge", decl, { site: "07374000" }, 1250);
    expect(answer).toMatchObject({ seq: 3, ok: true, guarded: true, tool_version: 1 });
    expect(answer.result).toEqual({ value: 1250, unit: "cfs" });
    expect(answer.result_ok).toBe(true);
    const again = await store.packs.call(teamId, sessionId, "usgs.discharge", { params: {} }, { site: "1" }, 5);
    expect([again.seq, again.tool_version]).toEqual([4, 1]);
    await expect(store.packs.record(teamId, "nope", "usgs.reading", [])).rejects.toMatchObject({ code: "not_found" });
  });
});
