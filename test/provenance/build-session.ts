// Builds stored sessions through the real HTTP app for the manifest, replay, history and CLI tests.
import type { TestApp as FullTestApp } from "../helpers/db.js";

/** What these helpers use of a test app (either engine's). */
type TestApp = Pick<FullTestApp, "call">;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON answers under test
export type Json = any;

/** Sends a request and fails loudly on an unexpected status. */
export async function ok(t: TestApp, method: string, path: string, body?: unknown, token?: string): Promise<Json> {
  const r = await t.call(method, path, { body, token });
  if (r.status >= 300) throw new Error(`${method} ${path} answered ${r.status}: ${JSON.stringify(r.body)}`);
  return r.body;
}

/** Declares the runoff tools of the corpus task `runoff_depth`. */
export async function declareRunoffTools(t: TestApp, token?: string): Promise<void> {
  await ok(t, "PUT", "/v1/tools/read_discharge", { params: { station: {} }, returns: { unit: "cfs" } }, token);
  await ok(t, "PUT", "/v1/tools/read_drainage_area", { params: { station: {} }, returns: { unit: "km**2" } }, token);
  await ok(
    t,
    "PUT",
    "/v1/tools/runoff_depth",
    { params: { discharge: { unit: "m**3/s" }, area: { unit: "km**2" } }, returns: { unit: "mm/day" } },
    token,
  );
}

/** Posts one call and, when given, its result; answers the call's id. */
export async function callWithResult(
  t: TestApp,
  sessionId: string,
  tool: string,
  args: Record<string, unknown>,
  result?: unknown,
  token?: string,
): Promise<string> {
  const call = await ok(t, "POST", `/v1/sessions/${sessionId}/calls`, { tool, args }, token);
  if (result !== undefined)
    await ok(t, "POST", `/v1/sessions/${sessionId}/calls/${call.call_id}/result`, { result }, token);
  return call.call_id as string;
}

export const RUNOFF_QUESTION =
  "For USGS station 07374000, compute the depth-equivalent runoff over the 29,000 km2 basin. Report the result in mm/day.";

/**
 * The runoff session: two retrievals, a carried-over 1250 refused, the converted call, its result and one audit.
 * Answers the session id and the call ids in order.
 */
export async function runoffSession(
  t: TestApp,
  options: { enforcement?: "enforce" | "warn"; labels?: Record<string, string>; token?: string; audit?: boolean } = {},
): Promise<{ id: string; calls: string[] }> {
  const token = options.token;
  await declareRunoffTools(t, token);
  const s = await ok(
    t,
    "POST",
    "/v1/sessions",
    { context: RUNOFF_QUESTION, enforcement: options.enforcement ?? "enforce", labels: options.labels ?? {} },
    token,
  );
  const calls = [
    await callWithResult(t, s.id, "read_discharge", { station: "07374000" }, 1250, token),
    await callWithResult(t, s.id, "read_drainage_area", { station: "07374000" }, 29000, token),
    await callWithResult(t, s.id, "runoff_depth", { discharge: 1250, area: 29000 }, undefined, token),
    await callWithResult(t, s.id, "runoff_depth", { discharge: "1250 cfs", area: 29000 }, 0.10545584248055169, token),
  ];
  if (options.audit !== false) {
    await ok(
      t,
      "POST",
      `/v1/sessions/${s.id}/audit`,
      { answer: "Runoff is 0.105 mm/day from 1250 cfs over the 29,000 km2 basin.\nANSWER: 0.105 mm/day" },
      token,
    );
  }
  return { id: s.id as string, calls };
}

/** A clock that moves `stepMs` forward every time it is read, so every stored time is distinct and ordered. */
export function tickingClock(startIso: string, stepMs = 1): { now(): Date } {
  let t = Date.parse(startIso);
  return { now: () => new Date((t += stepMs)) };
}
