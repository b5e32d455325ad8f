// /ui/evaluations: runs by task against the eleven gates as a heat map; /ui/evaluations/{id}: one evaluation with
// each gate's findings and the ledger sources its facts resolved to.
import type { Child } from "hono/jsx";
import type { Decision } from "../../gates/decision.js";
import { GATE_NAMES, type GateStatus } from "../../gates/outcome-kit.js";
import { Badge, Empty, Pager } from "../components.js";
import type { UiApp, UiDeps } from "../env.js";
import { cleanUrl, cursorOf, one, readParams } from "../filters.js";
import { encodeKey, href, magnitude, shortTime, withParam, type Params } from "../format.js";
import { Layout } from "../layout.js";
import { problemPage } from "../problem.js";
import type { EvaluationRow } from "../../store/dashboard.js";
import { QueryError } from "../../query-params.js";

const NAMES = ["task", "status", "cursor"] as const;
const PAGE = 100;
/** The heat map's cell text per gate status; not_comparable blocks like blocked. */
const STATUS_TEXT: Record<GateStatus, string> = {
  passed: "pass",
  blocked: "BLOCK",
  not_applicable: "n/a",
  not_comparable: "N/C",
};

/** Rows grouped by task, tasks in order of their newest run (rows arrive newest first). Pure. */
export function byTask(rows: readonly EvaluationRow[]): [string, EvaluationRow[]][] {
  const groups = new Map<string, EvaluationRow[]>();
  for (const r of rows) {
    const key = r.task ?? "(no task id)";
    groups.get(key)?.push(r) ?? groups.set(key, [r]);
  }
  return [...groups.entries()];
}

function HeatMap(props: { rows: EvaluationRow[]; params: Params }): Child {
  return (
    <table class="grid heat">
      <thead>
        <tr>
          <th>Task</th>
          <th>Evaluation</th>
          <th>Status</th>
          <th class="num">Score</th>
          {GATE_NAMES.map((g) => (
            <th class="gate">{g}</th>
          ))}
        </tr>
      </thead>
      <tbody>
        {byTask(props.rows).flatMap(([task, runs]) =>
          runs.map((r, i) => (
            <tr>
              <td class="task">
                {i === 0 ? <a href={href("/ui/evaluations", withParam(props.params, "task", task))}>{task}</a> : null}
              </td>
              <td>
                <a class="id" href={`/ui/evaluations/${encodeURIComponent(r.id)}`}>
                  {shortTime(r.createdAt)}
                </a>
              </td>
              <td>
                <Badge value={r.status} />
              </td>
              <td class="num">{r.overallScore.toFixed(2)}</td>
              {GATE_NAMES.map((g) => {
                const s = r.gates[g] ?? "not_applicable";
                return (
                  <td class={`cell g-${s}`} title={`${g}: ${s.replaceAll("_", " ")}`}>
                    {STATUS_TEXT[s]}
                  </td>
                );
              })}
            </tr>
          )),
        )}
      </tbody>
    </table>
  );
}

function Sources(props: { sources: Decision["sources"] }): Child {
  if (props.sources.length === 0) return <Empty>No fact of this evaluation cites a ledger locator.</Empty>;
  return (
    <table class="grid compact">
      <thead>
        <tr>
          <th>Claim</th>
          <th>Locator</th>
          <th>Status</th>
          <th>Crossing</th>
          <th>Tool</th>
          <th class="num">Value</th>
          <th>Unit</th>
          <th>Quality</th>
          <th>Observed at</th>
        </tr>
      </thead>
      <tbody>
        {props.sources.map((s) => (
          <tr>
            <td class="mono">{s.claim_id ?? ""}</td>
            <td class="mono">{s.locator}</td>
            <td>
              <Badge value={s.status} />
            </td>
            <td>
              {s.crossing_id === null || s.session_id === null ? (
                ""
              ) : (
                <a href={`/ui/sessions/${encodeURIComponent(s.session_id)}#crossing-${s.crossing_id}`}>
                  {`crossing ${s.crossing_id} (call #${s.seq ?? "?"})`}
                </a>
              )}
            </td>
            <td class="mono">{s.tool ?? ""}</td>
            <td class="num">{magnitude(s.value)}</td>
            <td class="mono">{s.unit ?? ""}</td>
            <td>{s.quality ?? ""}</td>
            <td class="time">{s.observed_at ?? ""}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Registers /ui/evaluations and /ui/evaluations/{id}. */
export function registerEvaluationPages(ui: UiApp, deps: UiDeps): void {
  ui.get("/evaluations", async (c) => {
    const params = readParams(c, NAMES);
    const clean = cleanUrl(c, params);
    if (clean !== null) return c.redirect(clean, 303);
    const status = one(params, "status");
    if (status !== undefined && status !== "released" && status !== "blocked")
      throw new QueryError("status", `status must be released or blocked, received '${status}'`);
    const before = cursorOf(params, ["string", "string"]) as [string, string] | null;
    const page = await deps.dashboard.evaluations(c.get("teamId"), {
      task: one(params, "task"),
      status,
      limit: PAGE,
      before,
    });
    return c.html(
      <Layout title="Evaluations" nav="evaluations" team={c.get("teamName")}>
        <div class="head">
          <h1>Evaluations</h1>
          <nav class="windows" aria-label="status">
            {[null, "released", "blocked"].map((s) => (
              <a
                class={(status ?? null) === s ? "chip on" : "chip"}
                href={href("/ui/evaluations", withParam(params, "status", s))}
              >
                {s ?? "all"}
              </a>
            ))}
          </nav>
          <p class="meta">Each row is one evaluation against the eleven gates, grouped by task, newest first.</p>
        </div>
        <div id="evaluations-list">
          {page.items.length === 0 ? (
            <Empty>No evaluation matches this filter.</Empty>
          ) : (
            <HeatMap rows={page.items} params={params} />
          )}
          <Pager
            path="/ui/evaluations"
            params={params}
            next={page.next === null ? null : encodeKey(page.next)}
            target="evaluations-list"
            shown={page.items.length}
          />
        </div>
      </Layout>,
    );
  });

  ui.get("/evaluations/:id", async (c) => {
    const id = c.req.param("id");
    const e = await deps.dashboard.evaluation(c.get("teamId"), id);
    if (!e) return problemPage(c, 404, "Evaluation not found", `This team's ledger has no evaluation '${id}'.`);
    return c.html(
      <Layout title={`Evaluation ${e.id}`} nav="evaluations" team={c.get("teamName")}>
        <div class="head">
          <h1>
            Evaluation <span class="mono">{e.id}</span> <Badge value={e.status} />
          </h1>
          <p class="meta">
            {`task ${e.task ?? "(no task id)"} · ${shortTime(e.created_at)} · overall score ${e.overall_score.toFixed(2)}`}
            {e.blocked_by.length > 0 ? ` · blocked by ${e.blocked_by.join(", ")}` : ""}
          </p>
        </div>
        {e.findings.length > 0 ? (
          <ul class="findings">
            {e.findings.map((f) => (
              <li>
                <Badge value={f.severity} /> <span class="mono">{f.code}</span> {f.message}
              </li>
            ))}
          </ul>
        ) : null}
        <h2>Gates</h2>
        <div class="gates">
          {GATE_NAMES.map((g) => {
            const o = e.gates[g];
            return (
              <section class="gatecard">
                <h3>
                  {g} <Badge value={o.status} />
                  <span class="score">{o.score === null ? "" : `score ${o.score.toFixed(2)}`}</span>
                </h3>
                {o.findings.length === 0 ? (
                  <span class="muted">no findings</span>
                ) : (
                  <ul>
                    {o.findings.map((f) => (
                      <li>
                        <Badge value={f.severity} /> <span class="mono">{f.code}</span> {f.message}
                      </li>
                    ))}
                  </ul>
                )}
              </section>
            );
          })}
        </div>
        <h2>Sources</h2>
        <Sources sources={e.sources ?? []} />
      </Layout>,
    );
  });
}
