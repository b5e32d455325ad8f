import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createApp } from "../../src/api/app.js";
import { fixedClock } from "../../src/clock.js";
import { defaultConfig } from "../../src/config.js";
import { openDb } from "../../src/store/sqlite/db.js";
import { seedDatabase } from "../../src/store/sqlite/seed.js";
import { ensureAdminToken } from "../../src/store/sqlite/teams.js";
import type { TestApp } from "../helpers/db.js";
import { createEngineApp, ENGINES } from "../helpers/engines.js";
import type { StoreEngine } from "../../src/store/port.js";
import { sqliteStore } from "../../src/store/sqlite/store.js";

type Finding = { code: string; message: string; severity: string };
type Source = {
  claim_id: string | null;
  locator: string;
  status: string;
  crossing_id: number | null;
  value: number | null;
};
type Evaluation = {
  id: string;
  status: string;
  gates: Record<string, { status: string; findings: Finding[] }>;
  sources: Source[];
};
type Revision = {
  id: string;
  kind: string;
  source: string;
  observed_at: string;
  before: { crossing_id: number; value: number; unit: string; quality: string | null };
  after: { crossing_id: number | null; value: number; unit: string; quality: string | null };
  affected: { evaluation_id: string; task: string | null; claim_id: string | null }[];
};

const DAY = 86_400_000;
const MARCH = "2026-03-14T10:15:00-05:00";
const SOURCE = "usgs:07374000:00060";

/** A reading as a tool returns it: a discharge with its quality, source and observation time. */
const reading = (value: number, quality: string, observedAt = MARCH, unit = "cfs") => ({
  discharge: { value, unit, quality, source: SOURCE, observed_at: observedAt },
});

/** A result whose one fact cites `source` with `value`. */
const report = (task: string, source: string, value: string | undefined) => ({
  task: { id: task },
  result: {
    output: "The Mississippi at Baton Rouge carried the March flood.",
    claims: [
      {
        id: "F1",
        kind: "fact",
        text: "Discharge at Baton Rouge on 14 March.",
        ...(value === undefined ? {} : { value }),
        source,
        confidence: 0.9,
        verified: true,
      },
    ],
  },
});

type Caller = Pick<TestApp, "call">;

/** The engine the suites below run on (set by each describe.each block before its tests). */
let engine: StoreEngine = "sqlite";
const appOn = (options: Parameters<typeof createEngineApp>[1] = { clock: fixedClock("2026-03-15T09:00:00Z") }) =>
  createEngineApp(engine, options);

async function setup<T extends Caller>(given?: T, token?: string) {
  const t = (given ?? (await appOn())) as T;
  const as = token ? { token } : {};
  await t.call("PUT", "/v1/tools/read_discharge", {
    body: { params: { site: {} }, returns: { discharge: { unit: "ft^3/s" } } },
    ...as,
  });
  /** Opens a session, calls read_discharge and stores `result`; answers the session id and the crossing id. */
  const read = async (result: unknown) => {
    const s = (await t.call("POST", "/v1/sessions", { body: { context: "Baton Rouge" }, ...as })).body as {
      id: string;
    };
    const c = (
      await t.call("POST", `/v1/sessions/${s.id}/calls`, {
        body: { tool: "read_discharge", args: { site: "07374000" } },
        ...as,
      })
    ).body as { call_id: string };
    const r = await t.call("POST", `/v1/sessions/${s.id}/calls/${c.call_id}/result`, { body: { result }, ...as });
    expect(r.status).toBe(200);
    const calls = (await t.call("GET", `/v1/sessions/${s.id}/calls`, as)).body as {
      items: { crossings: { id: number; direction: string }[] }[];
    };
    const crossing = calls.items[0]!.crossings.find((x) => x.direction === "return")!.id;
    return { session: s.id, crossing };
  };
  const evaluate = async (body: unknown) => {
    const r = await t.call("POST", "/v1/evaluations", { body, ...as });
    expect(r.status).toBe(200);
    return r.body as Evaluation;
  };
  return { t, read, evaluate };
}

const evidence = (e: Evaluation) => e.gates.evidence!.findings.map((f) => `${f.code}: ${f.message}`);

describe.each(ENGINES)("evidence that resolves in the ledger, over HTTP, on %s", (e) => {
  beforeEach(() => {
    engine = e;
  });
  it("releases a report whose 35.4 m^3/s restates a stored 1250 cfs, and links the crossing to its claim", async () => {
    const { t, read, evaluate } = await setup();
    const { session, crossing } = await read(reading(1250, "A"));
    const e = await evaluate(report("flood", `ledger:sessions/${session}`, "35.4 m^3/s"));
    expect(e.status).toBe("released");
    expect(e.sources).toEqual([
      {
        claim_id: "F1",
        locator: `ledger:sessions/${session}`,
        status: "resolved",
        crossing_id: crossing,
        session_id: session,
        seq: 1,
        tool: "read_discharge",
        value: 1250,
        unit: "ft^3/s",
        quality: "approved",
        observed_at: MARCH,
        match: "restated",
      },
    ]);
    expect(((await t.call("GET", `/v1/evaluations/${e.id}`)).body as Evaluation).sources).toEqual(e.sources);
    const claims = await t.call("GET", `/v1/crossings/${crossing}/claims`);
    expect(claims.body).toEqual({
      items: [
        {
          evaluation_id: e.id,
          task: "flood",
          claim_id: "F1",
          claim_text: "Discharge at Baton Rouge on 14 March.",
          locator: `ledger:sessions/${session}`,
          status: "resolved",
          run: 1,
          created_at: "2026-03-15T09:00:00.000Z",
        },
      ],
      next_cursor: null,
    });
  });

  it("blocks 1300 cfs and 1250 m^3/s against the call, and keeps no links for a blocked report", async () => {
    const { t, read, evaluate } = await setup();
    const { session, crossing } = await read(reading(1250, "A"));
    const call = `ledger:sessions/${session}/calls/1`;
    const wrong = await evaluate(report("flood", call, "1300 cfs"));
    expect([wrong.status, evidence(wrong)]).toEqual([
      "blocked",
      [
        `LEDGER_VALUE_MISMATCH: Fact F1 states 1300 cfs, which restates no value stored under ${call}; the nearest stored value is ` +
          `1250 ft^3/s from read_discharge (call 1, return.discharge, crossing ${crossing}). Send the stored value (in any unit it ` +
          "converts to), or cite the call that returned 1300 cfs.",
      ],
    ]);
    const mislabelled = await evaluate(report("flood", call, "1250 m^3/s"));
    expect(mislabelled.gates.evidence!.findings.map((f) => f.code)).toEqual(["LEDGER_UNIT_MISLABELLED"]);
    expect((await t.call("GET", `/v1/crossings/${crossing}/claims`)).body).toEqual({ items: [], next_cursor: null });
  });

  it("answers another team's session exactly as an unknown one, and hides its crossing's claims", async () => {
    const base = await appOn();
    const mine = await setup(base);
    const { session, crossing } = await mine.read(reading(1250, "A"));
    const theirs = await setup(base, await base.teamToken("other"));
    const foreign = await theirs.evaluate(report("flood", `ledger:sessions/${session}`, "1250 cfs"));
    const unknown = await theirs.evaluate(report("flood", "ledger:sessions/01JQNOSUCHSESSION000000000", "1250 cfs"));
    expect(foreign.status).toBe("blocked");
    expect(evidence(foreign)).toEqual([
      `LEDGER_SOURCE_NOT_FOUND: Fact F1 cites ledger:sessions/${session}, which names nothing in this team's ledger; cite a session, ` +
        "call or crossing of your own team (GET /v1/sessions lists them).",
    ]);
    expect(evidence(unknown)[0]!.replace("01JQNOSUCHSESSION000000000", session)).toBe(evidence(foreign)[0]);
    const other = await base.call("GET", `/v1/crossings/${crossing}/claims`, { token: await base.teamToken("other") });
    expect(other.status).toBe(404);
  });

  it("answers each locator of one evaluation as if it were cited alone, though the store reads them in one batch", async () => {
    const { t, evaluate } = await setup();
    let hour = 10;
    // Each reading at its own time: one source read twice at one time would be a revision.
    const session = async (...values: number[]) => {
      const s = (await t.call("POST", "/v1/sessions", { body: { context: "Baton Rouge" } })).body as { id: string };
      for (const v of values) {
        const c = (
          await t.call("POST", `/v1/sessions/${s.id}/calls`, {
            body: { tool: "read_discharge", args: { site: "07374000" } },
          })
        ).body as { call_id: string };
        await t.call("POST", `/v1/sessions/${s.id}/calls/${c.call_id}/result`, {
          body: { result: reading(v, "A", `2026-03-14T${hour++}:15:00-05:00`) },
        });
      }
      const calls = (await t.call("GET", `/v1/sessions/${s.id}/calls`)).body as {
        items: { crossings: { id: number; direction: string }[] }[];
      };
      const of = (i: number, d: string) => calls.items[i]!.crossings.find((x) => x.direction === d)!.id;
      return { id: s.id, returns: values.map((_, i) => of(i, "return")), param: of(0, "param") };
    };
    const a = await session(1250, 60);
    const b = await session(2000);
    const cited: [string, string][] = [
      [`ledger:sessions/${a.id}`, "35.4 m^3/s"],
      [`ledger:sessions/${a.id}/calls/2`, "1.699 m^3/s"],
      [`LEDGER:sessions/${a.id}`, "60 cfs"],
      [`ledger:sessions/${b.id}/calls/1`, "2000 cfs"],
      [`ledger:crossings/${b.returns[0]}`, "56.63 m^3/s"],
      [`ledger:sessions/${a.id}/calls/3`, "1250 cfs"],
      [`ledger:crossings/${a.param}`, "1250 cfs"],
    ];
    const result = (claims: [string, string][]) => ({
      task: { id: "batch" },
      result: {
        output: "The Mississippi at Baton Rouge carried the March flood.",
        claims: claims.map(([source, value], i) => ({
          id: `F${i + 1}`,
          kind: "fact",
          text: `Discharge reading ${i + 1}.`,
          value,
          source,
          confidence: 0.9,
          verified: true,
        })),
      },
    });
    const all = await evaluate(result(cited));
    expect(all.sources.map((x) => [x.locator, x.status, x.crossing_id])).toEqual([
      [cited[0]![0], "resolved", a.returns[0]],
      [cited[1]![0], "resolved", a.returns[1]],
      [cited[2]![0], "resolved", a.returns[1]],
      [cited[3]![0], "resolved", b.returns[0]],
      [cited[4]![0], "resolved", b.returns[0]],
      [cited[5]![0], "not_found", null],
      [cited[6]![0], "not_found", null],
    ]);
    for (const [i, c] of cited.entries()) {
      const alone = await evaluate(result([c]));
      expect([{ ...alone.sources[0], claim_id: `F${i + 1}` }, evidence(alone)]).toEqual([
        all.sources[i],
        evidence(all)
          .filter((f) => f.includes(`Fact F${i + 1} `))
          .map((f) => f.replace(`Fact F${i + 1} `, "Fact F1 ")),
      ]);
    }
  });

  it("warns on a provisional reading, and blocks it when the request sets evidence.min_quality = approved", async () => {
    const { read, evaluate } = await setup();
    const { session } = await read(reading(1250, "P"));
    const warned = await evaluate(report("flood", `ledger:sessions/${session}`, "1250 cfs"));
    expect([warned.status, warned.gates.evidence!.findings.map((f) => `${f.code} ${f.severity}`)]).toEqual([
      "released",
      ["LEDGER_PROVISIONAL_SOURCE warning"],
    ]);
    const strict = await evaluate({
      ...report("flood", `ledger:sessions/${session}`, "1250 cfs"),
      settings: { evidence: { min_quality: "approved" } },
    });
    expect([strict.status, strict.gates.evidence!.findings.map((f) => `${f.code} ${f.severity}`)]).toEqual([
      "blocked",
      ["LEDGER_PROVISIONAL_SOURCE error"],
    ]);
  });
});

describe.each(ENGINES)("readings and their revisions, over HTTP, on %s", (e) => {
  beforeEach(() => {
    engine = e;
  });
  it("records a revision when a later reading of the same source and time differs, listing the March report as affected", async () => {
    const clock = fixedClock("2026-03-15T09:00:00Z");
    const { t, read, evaluate } = await setup(await appOn({ clock }));
    const march = await read(reading(412000, "P"));
    const released = await evaluate(report("flood", `ledger:sessions/${march.session}`, "412000 cfs"));
    expect(released.status).toBe("released");
    clock.advance(80 * DAY);
    // The same instant written in UTC is the same reading.
    const june = await read(reading(405000, "A", "2026-03-14T15:15:00Z"));
    const page = (await t.call("GET", "/v1/revisions")).body as { items: Revision[]; next_cursor: string | null };
    expect(page.next_cursor).toBeNull();
    expect(page.items).toHaveLength(1);
    const rev = page.items[0]!;
    expect(rev).toMatchObject({
      kind: "detected",
      source: SOURCE,
      observed_at: "2026-03-14T15:15:00Z",
      revised_by: "read_discharge",
      detected_at: "2026-06-03T09:00:00.000Z",
      before: {
        crossing_id: march.crossing,
        session_id: march.session,
        value: 412000,
        unit: "ft^3/s",
        quality: "provisional",
      },
      after: {
        crossing_id: june.crossing,
        session_id: june.session,
        value: 405000,
        unit: "ft^3/s",
        quality: "approved",
      },
      affected: [{ evaluation_id: released.id, task: "flood", claim_id: "F1" }],
    });
    expect((await t.call("GET", `/v1/revisions/${rev.id}`)).body).toEqual(rev);
    expect((await t.call("GET", `/v1/revisions?source=${encodeURIComponent("usgs:other:00060")}`)).body).toEqual({
      items: [],
      next_cursor: null,
    });

    const repeat = await evaluate(report("flood", `ledger:sessions/${march.session}`, "412000 cfs"));
    expect([repeat.status, evidence(repeat)]).toEqual([
      "blocked",
      [
        `LEDGER_SOURCE_REVISED: Fact F1 relies on 412000 ft^3/s (provisional) from read_discharge (call 1, return.discharge, crossing ` +
          `${march.crossing}), which was revised to 405000 ft^3/s (approved) at 2026-06-03T09:00:00.000Z (revision ${rev.id}); ` +
          `cite the revised reading ledger:crossings/${june.crossing} and state its value.`,
      ],
    ]);
    expect(repeat.sources.map((s) => s.status)).toEqual(["revised"]);
    const cited = await evaluate(report("flood-june", `ledger:crossings/${june.crossing}`, "405000 cfs"));
    expect([cited.status, cited.gates.evidence!.findings]).toEqual(["released", []]);
  });

  it("records a revision of quality only, after which a claim of the same value passes without a warning", async () => {
    const { t, read, evaluate } = await setup();
    const march = await read(reading(1250, "P"));
    await read(reading(1250, "A"));
    const rev = ((await t.call("GET", "/v1/revisions")).body as { items: Revision[] }).items;
    expect(rev.map((r) => [r.before.quality, r.after.quality, r.before.value, r.after.value])).toEqual([
      ["provisional", "approved", 1250, 1250],
    ]);
    const e = await evaluate(report("flood", `ledger:sessions/${march.session}`, "1250 cfs"));
    expect([e.status, e.gates.evidence!.findings, e.sources[0]?.status]).toEqual(["released", [], "resolved"]);
  });

  it("records no revision for two readings of one source at different observation times, or of the same value", async () => {
    const { t, read } = await setup();
    await read(reading(1250, "P"));
    await read(reading(1300, "P", "2026-03-14T10:30:00-05:00"));
    await read(reading(1250, "P"));
    expect((await t.call("GET", "/v1/revisions")).body).toEqual({ items: [], next_cursor: null });
  });

  it("declares a revision of a value no tool will re-read; the claim on the old value is blocked, the revised value passes", async () => {
    const { t, read, evaluate } = await setup();
    const { session, crossing } = await read(reading(1250, "P"));
    const body = {
      value: 36.1,
      unit: "m^3/s",
      quality: "approved",
      reason: "rating shift applied",
      revised_by: "hydrographer",
    };
    const r = await t.call("POST", `/v1/crossings/${crossing}/revise`, { body });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      kind: "declared",
      reason: "rating shift applied",
      revised_by: "hydrographer",
      before: { crossing_id: crossing, session_id: session, value: 1250, unit: "ft^3/s", quality: "provisional" },
      after: { crossing_id: null, session_id: null, value: 36.1, unit: "m^3/s", quality: "approved" },
      affected: [],
    });
    const old = await evaluate(report("flood", `ledger:crossings/${crossing}`, "1250 cfs"));
    expect(old.gates.evidence!.findings.map((f) => f.code)).toEqual(["LEDGER_SOURCE_REVISED"]);
    expect(evidence(old)[0]).toContain("cite the same crossing and state its value.");
    const revised = await evaluate(report("flood", `ledger:crossings/${crossing}`, "36.1 m^3/s"));
    expect([revised.status, revised.gates.evidence!.findings]).toEqual(["released", []]);
  });

  it("refuses a revision of an unknown crossing (404), of the same value (409), in another dimension (422) or without a reason (400)", async () => {
    const { t, read } = await setup();
    const { crossing } = await read(reading(1250, "A"));
    const body = { value: 1250, unit: "cfs", quality: "approved", reason: "check", revised_by: "me" };
    const status = async (id: number | string, b: unknown) =>
      (await t.call("POST", `/v1/crossings/${id}/revise`, { body: b })).status;
    expect(await status(999999, body)).toBe(404);
    const same = await t.call("POST", `/v1/crossings/${crossing}/revise`, { body });
    expect([same.status, (same.body as { error: { message: string } }).error.message]).toEqual([
      409,
      `crossing ${crossing} already stands at 1250 ft^3/s (approved); a revision must change the value or the quality`,
    ]);
    const dim = await t.call("POST", `/v1/crossings/${crossing}/revise`, { body: { ...body, unit: "ft" } });
    expect([dim.status, (dim.body as { error: { code: string } }).error.code]).toEqual([422, "dimensionality_error"]);
    expect(await status(crossing, { value: 1300, unit: "cfs", revised_by: "me" })).toBe(400);
    expect(await status("abc", body)).toBe(400);
  });
});

describe("stored links and replay", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it("keeps a released evaluation's links and the revisions across a restart", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ledger-evidence-"));
    dirs.push(dir);
    const file = join(dir, "ledger.db");
    const token = "test-admin-token-0123456789";
    const open = () => {
      const db = openDb(file);
      seedDatabase(db);
      ensureAdminToken(db.db, token);
      return {
        db,
        app: createApp({
          store: sqliteStore(db, { clock: fixedClock("2026-03-15T09:00:00Z") }),
          config: defaultConfig(),
          clock: fixedClock("2026-03-15T09:00:00Z"),
        }),
      };
    };
    const get = async (app: ReturnType<typeof open>["app"], path: string) =>
      (await app.request(path, { headers: { authorization: `Bearer ${token}` } })).json();
    const first = open();
    const t = {
      call: async (method: string, path: string, o: { body?: unknown } = {}) => {
        const res = await first.app.request(path, {
          method,
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body: o.body === undefined ? undefined : JSON.stringify(o.body),
        });
        return { status: res.status, body: (await res.json()) as unknown, headers: res.headers };
      },
    } as unknown as TestApp;
    const { read, evaluate } = await setup(t);
    const { session, crossing } = await read(reading(1250, "P"));
    const e = await evaluate(report("flood", `ledger:sessions/${session}`, "1250 cfs"));
    await read(reading(1300, "A"));
    const claims = await get(first.app, `/v1/crossings/${crossing}/claims`);
    const revisions = await get(first.app, "/v1/revisions");
    first.db.sqlite.close();
    const second = open();
    expect(await get(second.app, `/v1/crossings/${crossing}/claims`)).toEqual(claims);
    expect(await get(second.app, "/v1/revisions")).toEqual(revisions);
    expect(((await get(second.app, `/v1/evaluations/${e.id}`)) as Evaluation).sources).toEqual(e.sources);
    second.db.sqlite.close();
  });

  it("replays a session whose reading was later revised as identical", async () => {
    const { t, read } = await setup();
    const { session } = await read(reading(1250, "P"));
    await read(reading(1300, "A"));
    const r = await t.call("POST", "/v1/replay", { body: { session_id: session } });
    expect(r.body).toMatchObject({ identical: true, calls: 1, differences: [] });
  });
});
