// Loads corpus runs into a running app through its HTTP API: one team per task (its tools and datums), one session per
// run (its calls, their recorded results, its final answer audited), then a replay of every stored session.
import type { LedgerApp } from "../../src/api/env.js";
import { declarationBody, type Run, type Tasks } from "./corpus.js";

/** A violation as the API answers it. */
export type ApiViolation = { code: string; param: string | null; message: string; repair: string };
/** One audited number as the API answers it. */
export type ApiNumber = {
  text: string;
  value: number;
  unit: string | null;
  status: string;
  source: string | null;
  explanation: string;
  call_id: string | null;
  start: number;
  end: number;
};

/** What our service said about one recorded call. */
export type ObservedCall = {
  status: number;
  ok: boolean;
  guarded: boolean;
  violations: ApiViolation[];
  resultViolations: ApiViolation[];
};

/** What our service said about one run. */
export type Observed = {
  run: Run;
  sessionId: string;
  calls: ObservedCall[];
  audit: { ok: boolean; numbers: ApiNumber[] } | null;
  replay: { identical: boolean; difference_count: number } | null;
};

type Answer = { status: number; body: Record<string, unknown> };

/** A JSON client over `app.request` (no socket). */
export function client(app: LedgerApp) {
  return async (method: string, path: string, token: string, body?: unknown): Promise<Answer> => {
    const res = await app.request(path, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
}

type Client = ReturnType<typeof client>;

async function must(
  api: Client,
  method: string,
  path: string,
  token: string,
  body?: unknown,
): Promise<Record<string, unknown>> {
  const r = await api(method, path, token, body);
  if (r.status >= 300) throw new Error(`${method} ${path} answered ${r.status}: ${JSON.stringify(r.body)}`);
  return r.body;
}

/** Creates one team per task with the task's tools and the corpus's registered datums and offsets; answers each team's token. */
export async function setUpTeams(api: Client, adminToken: string, tasks: Tasks): Promise<Map<string, string>> {
  const tokens = new Map<string, string>();
  const datums = new Set(tasks.registered_datum_offsets.flatMap((o) => [o.from, o.to]));
  for (const [task, def] of Object.entries(tasks.tasks)) {
    const team = await must(api, "POST", "/v1/admin/teams", adminToken, { name: `corpus-${task}` });
    const issued = await must(api, "POST", `/v1/admin/teams/${team.id as string}/tokens`, adminToken, {
      name: "bench",
    });
    const token = issued.token as string;
    tokens.set(task, token);
    const known = new Set(
      ((await must(api, "GET", "/v1/datums", token)).items as { name: string }[]).map((d) => d.name),
    );
    for (const name of datums) if (!known.has(name)) await must(api, "POST", "/v1/datums", token, { name });
    for (const o of tasks.registered_datum_offsets) {
      if (o.offset)
        await must(api, "POST", "/v1/datums/offsets", token, {
          from: o.from,
          to: o.to,
          offset: o.offset,
          source: "corpus tasks.json",
        });
    }
    for (const [name, tool] of Object.entries(def.tools))
      await must(api, "PUT", `/v1/tools/${name}`, token, declarationBody(tool));
  }
  return tokens;
}

const asArgs = (a: unknown): Record<string, unknown> =>
  a && typeof a === "object" && !Array.isArray(a) ? (a as Record<string, unknown>) : {};

/**
 * Loads one run: its session (the question as context; `warn` where the harness did not enforce, `enforce` where it
 * did), each call, the recorded result of each call that had one, and an audit of the final answer.
 */
export async function loadRun(api: Client, token: string, run: Run): Promise<Observed> {
  const session = await must(api, "POST", "/v1/sessions", token, {
    context: run.question,
    enforcement: run.condition_config.enforcement === "strict" ? "enforce" : "warn",
    labels: { run: run.id, batch: run.batch, task: run.task, model: run.model.slice(0, 256), condition: run.condition },
  });
  const id = session.id as string;
  const calls: ObservedCall[] = [];
  for (const c of run.calls) {
    const r = await api("POST", `/v1/sessions/${id}/calls`, token, { tool: c.tool, args: asArgs(c.args) });
    if (r.status !== 200) {
      calls.push({ status: r.status, ok: false, guarded: false, violations: [], resultViolations: [] });
      continue;
    }
    const observed: ObservedCall = {
      status: 200,
      ok: r.body.ok as boolean,
      guarded: r.body.guarded as boolean,
      violations: r.body.violations as ApiViolation[],
      resultViolations: [],
    };
    // The recorded result is posted even where our guard refused the call: the run went on with it, and the audit
    // of its answer is judged against what the tools really returned.
    if (c.result !== null && c.result !== undefined) {
      const res = await must(api, "POST", `/v1/sessions/${id}/calls/${r.body.call_id as string}/result`, token, {
        result: c.result,
      });
      observed.resultViolations = res.violations as ApiViolation[];
    }
    calls.push(observed);
  }
  let audit: Observed["audit"] = null;
  if (run.answer !== null) {
    const a = await must(api, "POST", `/v1/sessions/${id}/audit`, token, { answer: run.answer });
    audit = { ok: a.ok as boolean, numbers: a.numbers as ApiNumber[] };
  }
  return { run, sessionId: id, calls, audit, replay: null };
}

/** Replays one stored session through `POST /v1/replay`. */
export async function replayRun(api: Client, token: string, o: Observed): Promise<void> {
  const r = await must(api, "POST", "/v1/replay", token, { session_id: o.sessionId });
  o.replay = { identical: r.identical as boolean, difference_count: r.difference_count as number };
}
