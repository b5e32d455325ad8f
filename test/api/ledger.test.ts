// GET /v1/ledger/key, /v1/ledger/head and /v1/ledger/verify: the service's public key, a team's signed head, and
// the walk of the team's own chain.
import { generateKeyPairSync } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { headRefusal, type SignedHead, signHead } from "../../src/chain/head.js";
import { signingKeyOf } from "../../src/chain/signing-key.js";
import { GENESIS } from "../../src/store/common/chain.js";
import { exportRefusal } from "../../src/chain/export-check.js";
import { closeEngineApps, createEngineApp, ENGINES } from "../helpers/engines.js";
import { schedulerResult } from "../helpers/gated.js";

afterAll(closeEngineApps);

const READ = { params: { site: {} }, returns: { unit: "cfs" } };

describe.each(ENGINES)("on %s", (engine) => {
  /** An app whose default team has a tool, a session and one answered call: 6 entries. */
  async function ledger() {
    const t = await createEngineApp(engine);
    const team = t.defaultTeamId;
    const before = ((await t.call("GET", "/v1/ledger/head")).body as SignedHead).count;
    await t.store.tools.put(team, "read_discharge", READ);
    const s = await t.store.sessions.create(team, { context: "discharge at 07374000" });
    const call = await t.store.calls.call(team, s.id, "read_discharge", { site: "07374000" });
    await t.store.calls.result(team, s.id, call.call_id, "1250 cfs");
    return { t, team, before };
  }

  it("answers the public key and a head signed by it, which another key's head is refused against", async () => {
    const { t, team, before } = await ledger();
    const key = (await t.call("GET", "/v1/ledger/key")).body as { key_id: string; public_key: string };
    expect(key.key_id).toMatch(/^[0-9a-f]{16}$/);
    expect(key.public_key).toMatch(/^-----BEGIN PUBLIC KEY-----\n/);
    const res = await t.call("GET", "/v1/ledger/head");
    expect(res.status).toBe(200);
    const head = res.body as SignedHead;
    expect(head).toMatchObject({ team, count: before + 6, key_id: key.key_id });
    expect(head.digest).toMatch(/^[0-9a-f]{64}$/);
    expect(headRefusal(head, key.public_key)).toBeNull();
    expect(headRefusal({ ...head, count: head.count + 1 }, key.public_key)).toBe(
      "the head's signature does not verify with the public key",
    );
    const other = signingKeyOf(
      generateKeyPairSync("ed25519").privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
    );
    const forged = signHead({ team, count: head.count, digest: head.digest, at: head.at }, other);
    expect(headRefusal(forged, key.public_key)).toBe(
      `the head was signed by key ${other.keyId}, not by key ${key.key_id}`,
    );
    expect(headRefusal({ ...forged, key_id: key.key_id }, key.public_key)).toBe(
      "the head's signature does not verify with the public key",
    );
  });

  it("answers an evaluation report with a proof that verifies with the public key alone, and not once edited", async () => {
    const t = await createEngineApp(engine);
    const posted = await t.call("POST", "/v1/evaluations", {
      body: { task: { id: "scheduler-report" }, result: schedulerResult("2.08x") },
    });
    expect(posted.status).toBe(200);
    const id = (posted.body as { id: string }).id;
    const key = ((await t.call("GET", "/v1/ledger/key")).body as { public_key: string }).public_key;
    const res = await t.call("GET", `/v1/ledger/evaluations/${id}`);
    expect(res.status).toBe(200);
    const report = res.body as { status: string; overall_score: number; proof: { entries: { table: string }[] } };
    expect(report.proof.entries[0]!.table).toBe("runs");
    expect(exportRefusal(report, key)).toBeNull();
    expect(exportRefusal({ ...report, overall_score: report.overall_score + 1 }, key)).toBe(
      `evaluation ${id}: the report differs from the row chained`,
    );
    expect(exportRefusal({ ...report, status: report.status === "released" ? "blocked" : "released" }, key)).toBe(
      `evaluation ${id}: the report differs from the row chained`,
    );
  });

  it("answers an empty head for a team with no entries", async () => {
    const t = await createEngineApp(engine);
    const token = await t.teamToken("quiet");
    const head = (await t.call("GET", "/v1/ledger/head", { token })).body as SignedHead;
    expect(head).toMatchObject({ team: await t.teamId("quiet"), count: 0, digest: GENESIS, at: null });
  });

  it("verifies the team's chain, and names a crossing changed in the database", async () => {
    const { t, team, before } = await ledger();
    expect((await t.call("GET", "/v1/ledger/verify")).body).toEqual({ ok: true, count: before + 6 });
    const [c] = await t.rows<{ id: number }>(
      "SELECT id FROM crossings WHERE team_id = ? AND direction = 'return' ORDER BY id DESC LIMIT 1",
      team,
    );
    await t.rows("UPDATE crossings SET unit = 'm3/s' WHERE id = ? RETURNING id", c!.id);
    expect((await t.call("GET", "/v1/ledger/verify")).body).toEqual({
      ok: false,
      count: before + 5,
      first_bad: {
        table: "crossings",
        id: String(c!.id),
        reason: "changed column unit: the row differs from the row chained",
      },
    });
  });

  it("verifies from a time on (?since=), the window's entries only, and refuses a time it cannot read with a 400", async () => {
    const { t, team, before } = await ledger();
    const [mid] = await t.rows<{ at: string }>(
      "SELECT at FROM ledger_entries WHERE team_id = ? AND seq = ?",
      team,
      before + 4,
    );
    const [first] = await t.rows<{ seq: number }>(
      "SELECT min(seq) AS seq FROM ledger_entries WHERE team_id = ? AND at >= ?",
      team,
      mid!.at,
    );
    const windowed = await t.call("GET", `/v1/ledger/verify?since=${encodeURIComponent(mid!.at)}`);
    expect(windowed.status).toBe(200);
    expect(windowed.body).toEqual({ ok: true, count: before + 6 - Number(first!.seq) + 1 });
    expect((await t.call("GET", "/v1/ledger/verify?since=2999-01-01")).body).toEqual({ ok: true, count: 0 });
    const bad = await t.call("GET", "/v1/ledger/verify?since=yesterday");
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain(
      "since must be a date such as 2026-11-30 or a date-time with an offset such as 2026-11-30T04:00:00Z, received 'yesterday'",
    );
  });
});
