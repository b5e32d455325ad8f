// POST /v1/sessions/{id}/calls with `refusal`: a gateway recording into a service stores the calls it refused before
// the upstream (tool_blocked, rate_limited) as refused calls; no other code can be forged that way.
import { afterAll, describe, expect, it } from "vitest";
import { closeEngineApps, createEngineApp, ENGINES, type EngineApp } from "../helpers/engines.js";

type Answer = {
  status: number;
  body: {
    id?: string;
    violations?: unknown[];
    items?: unknown[];
    by_code?: Record<string, number>;
    error?: { code: string };
  };
};

afterAll(closeEngineApps);

const DIGEST = "a".repeat(64);
const REFUSAL = {
  code: "rate_limited",
  message:
    "rate limit reached: upstream 'usgs' allows 1 calls per minute (1/min); this call was not sent; try again in 60 s",
  repair:
    "[rate_limited] rate limit reached: upstream 'usgs' allows 1 calls per minute (1/min); this call was not sent; try again in 60 s",
};

describe.each(ENGINES)("on %s", (engine) => {
  async function session(): Promise<{ t: EngineApp; id: string }> {
    const t = await createEngineApp(engine);
    await t.call("PUT", "/v1/tools/usgs.read_discharge", {
      body: { params: { station: {} }, returns: { unit: "cfs" } },
    });
    const s = (await t.call("POST", "/v1/sessions", { body: { enforcement: "enforce" } })) as Answer;
    return { t, id: s.body.id as string };
  }

  it("stores a call sent with a gateway refusal as refused with that violation, listed with its digest", async () => {
    const { t, id } = await session();
    const answer = (await t.call("POST", `/v1/sessions/${id}/calls`, {
      body: { tool: "usgs.read_discharge", args: { station: "07374000" }, tool_digest: DIGEST, refusal: REFUSAL },
    })) as Answer;
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ ok: false, outcome: "refused", would_block: true, seq: 1 });
    expect(answer.body.violations).toEqual([{ ...REFUSAL, param: null }]);
    const listed = (await t.call("GET", `/v1/sessions/${id}/calls`)) as Answer;
    expect(listed.body.items).toHaveLength(1);
    expect(listed.body.items?.[0]).toMatchObject({
      tool: "usgs.read_discharge",
      ok: false,
      tool_digest: DIGEST,
      args: { station: "07374000" },
      violations: [{ ...REFUSAL, param: null }],
      crossings: [],
    });
    const report = (await t.call("GET", `/v1/sessions/${id}/report`)) as Answer;
    expect(report.body.by_code).toEqual({ rate_limited: 1 });
  });

  it("takes tool_blocked too", async () => {
    const { t, id } = await session();
    const blocked = {
      code: "tool_blocked",
      message: "tool 'read_discharge' changed",
      repair: "[tool_blocked] approve it",
    };
    const answer = (await t.call("POST", `/v1/sessions/${id}/calls`, {
      body: { tool: "usgs.read_discharge", args: { station: "07374000" }, refusal: blocked },
    })) as Answer;
    expect(answer.body.violations).toEqual([{ ...blocked, param: null }]);
  });

  it("refuses with 400 a refusal whose code is not the gateway's, and stores nothing", async () => {
    const { t, id } = await session();
    for (const code of ["unconverted_carry_over", "undeclared_tool", "tool_excluded", "anything"]) {
      const answer = (await t.call("POST", `/v1/sessions/${id}/calls`, {
        body: { tool: "usgs.read_discharge", args: { station: "07374000" }, refusal: { ...REFUSAL, code } },
      })) as Answer;
      expect(answer.status).toBe(400);
      expect(answer.body.error?.code).toBe("invalid_request");
    }
    const extra = (await t.call("POST", `/v1/sessions/${id}/calls`, {
      body: { tool: "usgs.read_discharge", args: {}, refusal: { ...REFUSAL, param: "station" } },
    })) as Answer;
    expect(extra.status).toBe(400);
    const listed = (await t.call("GET", `/v1/sessions/${id}/calls`)) as Answer;
    expect(listed.body.items).toEqual([]);
  });
});
