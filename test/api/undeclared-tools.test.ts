// AGENT_LEDGER_UNDECLARED_TOOLS: a call to a tool nobody declared is accepted unguarded by default, and refused with a
// repair naming what to do when the setting is `refuse` (a stored refusal, findable by its code), on both engines.
import { afterAll, describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../src/config.js";
import { closeEngineApps, createEngineApp, ENGINES } from "../helpers/engines.js";

afterAll(closeEngineApps);

const REPAIR =
  "[undeclared_tool] the tool 'read_rainfall' is not declared, and this ledger refuses calls to undeclared tools: " +
  "declare it first (PUT /v1/tools/read_rainfall with its params and returns, or an annotations file for the proxy), " +
  "or call a declared tool instead";

describe("the setting", () => {
  it("is accept unless set, and refuses anything but accept or refuse", () => {
    expect(loadConfig({}).undeclaredTools).toBe("accept");
    expect(loadConfig({ AGENT_LEDGER_UNDECLARED_TOOLS: "refuse" }).undeclaredTools).toBe("refuse");
    expect(() => loadConfig({ AGENT_LEDGER_UNDECLARED_TOOLS: "block" })).toThrow(ConfigError);
  });
});

describe.each(ENGINES)("a call to an undeclared tool on %s", (engine) => {
  async function callIt(undeclaredTools: "accept" | "refuse") {
    const t = await createEngineApp(engine, { config: { undeclaredTools } });
    const s = (await t.call("POST", "/v1/sessions", { body: { context: "rain" } })).body as { id: string };
    const r = await t.call("POST", `/v1/sessions/${s.id}/calls`, { body: { tool: "read_rainfall", args: { mm: 12 } } });
    return { t, s, r };
  }

  it("is accepted unguarded by default", async () => {
    const { r } = await callIt("accept");
    expect(r.body).toMatchObject({ ok: true, guarded: false, violations: [] });
  });

  it("is refused with a repair when AGENT_LEDGER_UNDECLARED_TOOLS=refuse, and stored as refused", async () => {
    const { t, s, r } = await callIt("refuse");
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      ok: false,
      guarded: false,
      would_block: true,
      outcome: "refused",
      args: {},
      violations: [{ code: "undeclared_tool", param: null, repair: REPAIR }],
    });
    const found = (await t.call("GET", "/v1/sessions?code=undeclared_tool")).body as { items: unknown[] };
    expect(found.items).toHaveLength(1);
    // The setting is the deployment's: the replay reads it off the recorded refusal and reproduces the verdict.
    const replay = await t.call("POST", "/v1/replay", { body: { session_id: s.id } });
    expect(replay.body).toMatchObject({ identical: true, calls: 1 });
  });
});
