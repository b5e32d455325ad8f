// A seeded team for the dashboard tests, written through the real JSON API, and a logged-in dashboard client.
import { fixedClock } from "../../src/clock.js";
import type { StoreEngine } from "../../src/store/port.js";
import { createEngineApp, type EngineApp } from "../helpers/engines.js";
import { stageResult } from "../helpers/gated.js";

/** Agent-written text that must render as text wherever it appears. */
export const XSS = "<img src=x onerror=alert(1)>";

/** The fixed time of the seeded world: every row is written at or after it. */
export const T0 = "2026-11-20T10:00:00.000Z";

/** What seedWorld built: ids and tokens the tests look for. */
export type World = {
  t: EngineApp;
  clock: ReturnType<typeof fixedClock>;
  acme: string;
  other: string;
  nightly: string;
  adhoc: string;
  xss: string;
  foreignSession: string;
  released: string;
  blocked: string;
  foreignEvaluation: string;
};

type Body = Record<string, unknown>;

async function post(t: EngineApp, token: string, path: string, body: unknown): Promise<Body> {
  const r = await t.call("POST", path, { body, token });
  if (r.status >= 300) throw new Error(`${path} answered ${r.status}: ${JSON.stringify(r.body)}`);
  return r.body as Body;
}

async function call(t: EngineApp, token: string, session: string, tool: string, args: unknown, result?: unknown) {
  const c = await post(t, token, `/v1/sessions/${session}/calls`, { tool, args });
  if (result !== undefined)
    await post(t, token, `/v1/sessions/${session}/calls/${c.call_id as string}/result`, { result });
  return c;
}

/**
 * Team acme: a nightly session (a reading, a conversion, an audited answer), an ad-hoc session a day later (a refused
 * carry-over), a session whose agent wrote markup into its context, label, unit and claim; a released and a blocked
 * evaluation. Team other: one session and one evaluation, never visible to acme.
 */
export async function seedWorld(engine: StoreEngine = "sqlite"): Promise<World> {
  const clock = fixedClock(T0);
  const t = await createEngineApp(engine, { clock });
  const acme = await t.teamToken("acme");
  const other = await t.teamToken("other");
  for (const token of [acme, other]) {
    await t.call("PUT", "/v1/tools/read_discharge", {
      token,
      body: { params: { station: {} }, returns: { unit: "cfs" } },
    });
    await t.call("PUT", "/v1/tools/runoff_depth", {
      token,
      body: { params: { discharge: { unit: "m**3/s" }, area: { unit: "km**2" } }, returns: { unit: "mm/day" } },
    });
  }
  const nightly = (
    await post(t, acme, "/v1/sessions", { context: "Runoff at Baton Rouge", labels: { run: "nightly", model: "m1" } })
  ).id as string;
  await call(t, acme, nightly, "read_discharge", { station: "07374000" }, 1250);
  await call(t, acme, nightly, "runoff_depth", { discharge: "1250 cfs", area: 29000 }, 0.1054);
  await post(t, acme, `/v1/sessions/${nightly}/audit`, {
    answer: "The river carried 1250 cfs, so the runoff depth was 0.1054 mm/day; about 77 people live nearby.",
  });
  clock.advance(86_400_000);
  const adhoc = (await post(t, acme, "/v1/sessions", { context: "Ad hoc check", labels: { run: "adhoc" } }))
    .id as string;
  await call(t, acme, adhoc, "read_discharge", { station: "07374000" }, 1250);
  await call(t, acme, adhoc, "runoff_depth", { discharge: 1250, area: 29000 });
  const xss = (await post(t, acme, "/v1/sessions", { context: XSS, labels: { note: XSS } })).id as string;
  await call(t, acme, xss, "undeclared_probe", { x: 1 }, { value: 3, unit: XSS });
  await post(t, acme, "/v1/claims", { id: "CLM-X", text: XSS, status: "live" });
  await post(t, acme, "/v1/claims", {
    id: "CLM-1",
    text: "Crest stage is 17.1 ft",
    key: "Crest Stage",
    status: "live",
  });
  await post(t, acme, "/v1/claims/CLM-1/demote", {
    reason: "gage re-surveyed",
    demoted_by: "review",
    watch: "17\\.1 ft",
  });
  await post(t, acme, "/v1/claims", {
    id: "CLM-2",
    text: "Crest stage is 17.3 ft after the re-survey",
    key: "Crest Stage",
    status: "live",
    supersedes: ["CLM-1"],
  });
  const released = (await post(t, acme, "/v1/evaluations", { task: { id: "crest" }, result: stageResult("17.2 ft") }))
    .id as string;
  const blocked = (
    await post(t, acme, "/v1/evaluations", { task: { id: "crest" }, result: { output: "no claims", claims: "x" } })
  ).id as string;
  const foreignSession = (await post(t, other, "/v1/sessions", { context: "other team's work" })).id as string;
  const foreignEvaluation = (
    await post(t, other, "/v1/evaluations", { task: { id: "crest" }, result: stageResult("17.2 ft") })
  ).id as string;
  return { t, clock, acme, other, nightly, adhoc, xss, foreignSession, released, blocked, foreignEvaluation };
}

/** Origin header of same-origin form posts in app.request() (its URLs are http://localhost). */
export const SAME_ORIGIN = { origin: "http://localhost" };

/** Logs in with `token` and answers the session cookie ("name=value"). */
export async function login(t: Pick<EngineApp, "app">, token: string): Promise<string> {
  const res = await t.app.request("/ui/login", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...SAME_ORIGIN },
    body: new URLSearchParams({ token }).toString(),
  });
  if (res.status !== 303) throw new Error(`login answered ${res.status}`);
  const set = res.headers.get("set-cookie") ?? "";
  return set.split(";")[0]!;
}

/** GET a dashboard path with a cookie; answers the status, the HTML and the headers. */
export async function page(
  t: Pick<EngineApp, "app">,
  path: string,
  cookie: string | null,
  headers: Record<string, string> = {},
) {
  const res = await t.app.request(path, { headers: { ...(cookie ? { cookie } : {}), ...headers }, redirect: "manual" });
  return { status: res.status, html: await res.text(), headers: res.headers };
}
