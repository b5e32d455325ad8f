// Readings of one gauge written through the real call path, and evaluations citing them: what revisions are made of.
import type { TestApp } from "../helpers/db.js";

/** An app on either engine: only its JSON API is used. */
type Caller = Pick<TestApp, "call">;

/** The observation time of the seeded readings, with an offset. */
export const MARCH = "2026-03-14T10:15:00-05:00";
/** The source of the seeded readings. */
export const SOURCE = "usgs:07374000:00060";
/** The declaration of read_discharge: one site in, one discharge out in ft^3/s. */
export const READING_TOOL = { params: { site: {} }, returns: { discharge: { unit: "ft^3/s" } } };

/** A JSON body. */
type Body = Record<string, unknown>;

/** POSTs as a team; throws on any status but 2xx. */
export async function post(t: Caller, token: string, path: string, body: unknown): Promise<Body> {
  const r = await t.call("POST", path, { body, token });
  if (r.status >= 300) throw new Error(`${path} answered ${r.status}: ${JSON.stringify(r.body)}`);
  return r.body as Body;
}

/** Reads a discharge through read_discharge in a new session; answers the session id and the return crossing's id. */
export async function read(
  t: Caller,
  token: string,
  value: number,
  quality: string,
  source = SOURCE,
  observedAt = MARCH,
) {
  const s = await post(t, token, "/v1/sessions", { context: "Baton Rouge" });
  const c = await post(t, token, `/v1/sessions/${s.id as string}/calls`, {
    tool: "read_discharge",
    args: { site: "07374000" },
  });
  await post(t, token, `/v1/sessions/${s.id as string}/calls/${c.call_id as string}/result`, {
    result: { discharge: { value, unit: "cfs", quality, source, observed_at: observedAt } },
  });
  const calls = (await t.call("GET", `/v1/sessions/${s.id as string}/calls`, { token })).body as {
    items: { crossings: { id: number; direction: string }[] }[];
  };
  return { session: s.id as string, crossing: calls.items[0]!.crossings.find((x) => x.direction === "return")!.id };
}

/** A released evaluation whose one fact cites `locator` with `value`. */
export async function evaluate(
  t: Caller,
  token: string,
  task: string,
  locator: string,
  value: string,
): Promise<string> {
  const e = await post(t, token, "/v1/evaluations", {
    task: { id: task },
    result: {
      output: "The Mississippi at Baton Rouge carried the March flood.",
      claims: [
        {
          id: "F1",
          kind: "fact",
          text: "Discharge at Baton Rouge on 14 March.",
          value,
          source: locator,
          confidence: 0.9,
          verified: true,
        },
      ],
    },
  });
  if (e.status !== "released") throw new Error(`evaluation ${task} was ${e.status as string}`);
  return e.id as string;
}
