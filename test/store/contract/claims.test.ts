// Store contract: the claim ledger and gated evaluations, the same on every engine.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LedgerStore } from "../../../src/store/port.js";
import { CLM1, correctedJune, schedulerResult, stageResult } from "../../helpers/gated.js";
import { enginesUnderTest, freshTeam, settableClock } from "./engines.js";

const DAY = 86_400_000;

describe.each(await enginesUnderTest())("$name store: claim ledger", (engine) => {
  let store: LedgerStore;
  const clock = settableClock("2026-03-02T09:00:00.000Z");
  beforeAll(async () => {
    store = await engine.open(clock);
  });
  afterAll(() => store.close());

  it("stores a claim with its key normalised and one created event; a repeated id is a conflict", async () => {
    const teamId = await freshTeam(store);
    clock.set("2026-03-02T09:00:00.000Z");
    const row = await store.claims.create(teamId, {
      id: "C1",
      text: "Crest 17.1 ft",
      key: "Crest  Stage",
      value: "17.1 ft",
      status: "live",
    });
    expect(row).toEqual({
      id: "C1",
      text: "Crest 17.1 ft",
      key: "crest stage",
      value: "17.1 ft",
      status: "live",
      reason: null,
      demoted_by: null,
      watch: null,
      supersedes: [],
      superseded_by: null,
      created_at: "2026-03-02T09:00:00.000Z",
      updated_at: "2026-03-02T09:00:00.000Z",
    });
    expect(await store.claims.events(teamId, "C1")).toEqual([
      {
        kind: "created",
        status: "live",
        reason: null,
        demoted_by: null,
        watch: null,
        superseded_by: null,
        created_at: "2026-03-02T09:00:00.000Z",
      },
    ]);
    await expect(store.claims.create(teamId, { id: "C1", text: "again", status: "live" })).rejects.toMatchObject({
      code: "conflict",
    });
    // Another team may use the same id; it sees nothing of this one.
    const other = await freshTeam(store);
    expect(await store.claims.find(other, "C1")).toBeNull();
    await expect(store.claims.get(other, "C1")).rejects.toMatchObject({
      code: "not_found",
      message: "no claim 'C1' in this team's ledger",
    });
    expect((await store.claims.create(other, { id: "C1", text: "theirs", status: "live" })).text).toBe("theirs");
  });

  it("refuses a watch RE2 cannot take and an unknown supersedes, naming each field and storing nothing", async () => {
    const teamId = await freshTeam(store);
    await expect(
      store.claims.create(teamId, { id: "W", text: "t", status: "demoted", watch: "(a)\\1", supersedes: ["GHOST"] }),
    ).rejects.toMatchObject({
      code: "invalid_request",
      details: [
        { path: "watch", message: expect.any(String) },
        { path: "supersedes", message: "no claim 'GHOST' in this team's ledger to supersede" },
      ],
    });
    expect(await store.claims.find(teamId, "W")).toBeNull();
  });

  it("demotes with a new event, supersedes a live claim, and keeps a superseded demoted claim demoted", async () => {
    const teamId = await freshTeam(store);
    clock.set("2026-03-02T09:00:00.000Z");
    await store.claims.create(teamId, { id: "A", text: "a", status: "live" });
    await store.claims.create(teamId, { id: "B", text: "b", status: "live" });
    clock.set("2026-03-03T09:00:00.000Z");
    const demoted = await store.claims.demote(teamId, "A", { reason: "wrong", demoted_by: "review", watch: "2\\.08x" });
    expect(demoted).toMatchObject({
      status: "demoted",
      reason: "wrong",
      watch: "2\\.08x",
      updated_at: "2026-03-03T09:00:00.000Z",
    });
    await store.claims.create(teamId, { id: "C", text: "c", status: "live", supersedes: ["A", "B"] });
    expect(await store.claims.get(teamId, "A")).toMatchObject({
      status: "demoted",
      superseded_by: "C",
      watch: "2\\.08x",
    });
    expect(await store.claims.get(teamId, "B")).toMatchObject({ status: "superseded", superseded_by: "C" });
    expect((await store.claims.events(teamId, "A")).map((e) => [e.kind, e.status])).toEqual([
      ["created", "live"],
      ["demoted", "demoted"],
      ["superseded", "demoted"],
    ]);
    await store.claims.create(teamId, { id: "D", text: "d", status: "live" });
    expect(await store.claims.supersede(teamId, "D", "C")).toMatchObject({ status: "superseded", superseded_by: "C" });
  });

  it("lists oldest first, filtered by status and a literal substring of id, text or key, paged with a cursor", async () => {
    const teamId = await freshTeam(store);
    for (const [i, id] of ["K-1", "K-2", "K-3"].entries()) {
      clock.set(`2026-03-0${i + 2}T00:00:00.000Z`);
      await store.claims.create(teamId, { id, text: i === 1 ? "100% sure" : "plain", status: "live" });
    }
    await store.claims.demote(teamId, "K-3", { reason: "r", demoted_by: "x" });
    const ids = (p: { items: { id: string }[] }) => p.items.map((c) => c.id);
    const first = await store.claims.list(teamId, { limit: 2 });
    expect(ids(first)).toEqual(["K-1", "K-2"]);
    expect(first.next_cursor).toEqual(["2026-03-03T00:00:00.000Z", "K-2"]);
    const second = await store.claims.list(teamId, { limit: 2, after: first.next_cursor });
    expect([ids(second), second.next_cursor]).toEqual([["K-3"], null]);
    expect(ids(await store.claims.list(teamId, { limit: 10, status: "demoted" }))).toEqual(["K-3"]);
    expect(ids(await store.claims.list(teamId, { limit: 10, q: "0%" }))).toEqual(["K-2"]);
    expect(ids(await store.claims.list(teamId, { limit: 10, q: "k-" }))).toEqual(["K-1", "K-2", "K-3"]);
  });

  it("imports JSON Lines, reporting each skipped line, and re-imports its own export unchanged", async () => {
    const teamId = await freshTeam(store);
    const text = [
      JSON.stringify(CLM1),
      "{not json",
      "",
      JSON.stringify({ id: "L1", status: "live", text: "x", key: "k", value: 3 }),
    ].join("\n");
    const report = await store.claims.importText(teamId, text);
    expect(report).toMatchObject({ imported: 2, updated: 0, unchanged: 0, warnings: [] });
    expect(report.skipped.map((s) => s.line)).toEqual([2]);
    const exported = await store.claims.exportText(teamId);
    expect(exported.split("\n")).toEqual([
      JSON.stringify({
        id: "CLM-1",
        text: CLM1.text,
        status: "demoted",
        reason: CLM1.reason,
        demoted_by: CLM1.demoted_by,
        watch: CLM1.watch,
      }),
      JSON.stringify({ id: "L1", text: "x", status: "live", key: "k", value: 3 }),
      "",
    ]);
    expect(await store.claims.importText(teamId, exported)).toEqual({
      imported: 0,
      updated: 0,
      unchanged: 2,
      skipped: [],
      warnings: [],
    });
    const changed = exported.replace('"status":"live"', '"status":"demoted"');
    expect(await store.claims.importText(teamId, changed)).toMatchObject({ imported: 0, updated: 1, unchanged: 1 });
    expect((await store.claims.get(teamId, "L1")).status).toBe("demoted");
  });
});

describe.each(await enginesUnderTest())("$name store: evaluations", (engine) => {
  let store: LedgerStore;
  const clock = settableClock("2026-03-02T09:00:00.000Z");
  beforeAll(async () => {
    store = await engine.open(clock);
  });
  afterAll(() => store.close());

  const stage = (value: unknown) => ({ task: { id: "crest-report" }, result: stageResult(value) });

  it("records a released evaluation and reads it back with its input and settings", async () => {
    const teamId = await freshTeam(store);
    clock.set("2026-03-02T09:00:00.000Z");
    const { evaluation, recorded } = await store.evaluations.evaluate(teamId, stage("17.1 ft"));
    expect(recorded).toBe(true);
    expect(evaluation).toMatchObject({
      task: "crest-report",
      status: "released",
      blocked_by: [],
      created_at: "2026-03-02T09:00:00.000Z",
    });
    const stored = await store.evaluations.get(teamId, evaluation.id);
    expect(stored.input).toEqual(stage("17.1 ft"));
    expect(stored.settings?.global.conjunctive).toBe(true);
    expect(stored.gates.contract.status).toBe("passed");
    await expect(store.evaluations.get(await freshTeam(store), evaluation.id)).rejects.toMatchObject({
      code: "not_found",
      message: `no evaluation '${evaluation.id}'`,
    });
  });

  it("blocks a later run that drifts from the released history, the same stage on another datum-free unit passing", async () => {
    const teamId = await freshTeam(store);
    clock.set("2026-03-02T09:00:00.000Z");
    await store.evaluations.evaluate(teamId, stage("17.1 ft"));
    clock.advance(DAY);
    expect((await store.evaluations.evaluate(teamId, stage("5.212 m"))).evaluation.status).toBe("released");
    clock.advance(DAY);
    const drift = (await store.evaluations.evaluate(teamId, stage("18.6 ft"))).evaluation;
    expect(drift.status).toBe("blocked");
    expect(drift.blocked_by).toEqual(["stability"]);
  });

  it("blocks a repeat of a demoted claim through its watch, and releases the corrected report that supersedes it", async () => {
    const teamId = await freshTeam(store);
    await store.claims.create(teamId, CLM1);
    const repeat = (
      await store.evaluations.evaluate(teamId, { task: { id: "sched" }, result: schedulerResult("2.08x") })
    ).evaluation;
    expect(repeat.status).toBe("blocked");
    expect(repeat.blocked_by).toEqual(["contradiction"]);
    const june = (await store.evaluations.evaluate(teamId, { task: { id: "sched" }, result: correctedJune() }))
      .evaluation;
    expect(june.status).toBe("released");
  });

  it("decides without recording when asked, and lists recorded ones newest first by task and status", async () => {
    const teamId = await freshTeam(store);
    clock.set("2026-03-02T00:00:00.000Z");
    const a = (await store.evaluations.evaluate(teamId, stage("17.1 ft"))).evaluation;
    clock.set("2026-03-03T00:00:00.000Z");
    const b = (await store.evaluations.evaluate(teamId, { task: { id: "other" }, result: { output: 3 } })).evaluation;
    const dry = await store.evaluations.evaluate(teamId, stage("17.1 ft"), { record: false });
    expect(dry.recorded).toBe(false);
    await expect(store.evaluations.get(teamId, dry.evaluation.id)).rejects.toMatchObject({ code: "not_found" });
    const all = await store.evaluations.list(teamId, { limit: 10 });
    expect(all.items.map((e) => [e.id, e.task, e.status])).toEqual([
      [b.id, "other", "blocked"],
      [a.id, "crest-report", "released"],
    ]);
    expect(all.next_cursor).toBeNull();
    expect((await store.evaluations.list(teamId, { limit: 10, status: "released" })).items.map((e) => e.id)).toEqual([
      a.id,
    ]);
    expect((await store.evaluations.list(teamId, { limit: 10, task: "other" })).items.map((e) => e.id)).toEqual([b.id]);
    expect(
      (await store.evaluations.list(teamId, { limit: 10, since: "2026-03-03T00:00:00.000Z" })).items.map((e) => e.id),
    ).toEqual([b.id]);
    const page = await store.evaluations.list(teamId, { limit: 1 });
    expect(page.next_cursor).toEqual(["2026-03-03T00:00:00.000Z", b.id]);
    expect(
      (await store.evaluations.list(teamId, { limit: 1, before: page.next_cursor })).items.map((e) => e.id),
    ).toEqual([a.id]);
  });

  it("refuses invalid settings before deciding anything", async () => {
    const teamId = await freshTeam(store);
    await expect(
      store.evaluations.evaluate(teamId, { ...stage("1 ft"), settings: { global: { min_score: "high" } } }),
    ).rejects.toMatchObject({ name: "SettingsError" });
    expect((await store.evaluations.list(teamId, { limit: 10 })).items).toEqual([]);
  });
});
