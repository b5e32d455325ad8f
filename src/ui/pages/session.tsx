// /ui/sessions/{id}: a session's calls in order with every crossing, and each audited answer with its numbers marked
// by status and linked to the crossing they trace to.
import type { Child } from "hono/jsx";
import type { Violation } from "../../guard/verdict.js";
import { problemPage } from "../problem.js";
import { Badge, CodeChip, Empty, LabelChip } from "../components.js";
import type { UiApp, UiDeps } from "../env.js";
import { counted, href, magnitude, shortTime } from "../format.js";
import { Layout } from "../layout.js";
import type { CrossingRow } from "../../store/model.js";
import type { AuditedAnswer, AuditedNumber, SessionDetail } from "../../store/dashboard.js";

/** The answer cut into plain text and marked numbers, each number found after the previous one. Pure. */
export function markAnswer(answer: string, numbers: readonly AuditedNumber[]): (string | AuditedNumber)[] {
  const out: (string | AuditedNumber)[] = [];
  let at = 0;
  for (const n of numbers) {
    const i = answer.indexOf(n.text, at);
    if (i < 0) continue;
    if (i > at) out.push(answer.slice(at, i));
    out.push(n);
    at = i + n.text.length;
  }
  if (at < answer.length) out.push(answer.slice(at));
  return out;
}

// A violation of the whole call (invalid_arguments, undeclared_tool) has no parameter: it is every row's repair.
const repairOf = (x: CrossingRow, violations: readonly Violation[]): string =>
  x.violation === null
    ? ""
    : (violations.find(
        (v) => v.code === x.violation && (v.param === x.param || v.param === null || x.direction === "return"),
      )?.repair ?? "");

/** Columns shown only when a crossing of the call has a value there: most calls carry no datum, zone or quality. */
const OPTIONAL_COLUMNS = [
  { head: "Datum", cell: (x: CrossingRow) => x.datum },
  { head: "TZ", cell: (x: CrossingRow) => x.tz },
  { head: "Quality", cell: (x: CrossingRow) => x.quality },
] as const;

function CrossingTable(props: { crossings: CrossingRow[]; violations: Violation[] }): Child {
  if (props.crossings.length === 0) return <Empty>No quantity crossed in this call.</Empty>;
  const shown = OPTIONAL_COLUMNS.filter((c) => props.crossings.some((x) => (c.cell(x) ?? "") !== ""));
  return (
    <table class="grid crossings">
      <thead>
        <tr>
          <th>Dir</th>
          <th>Parameter</th>
          <th>As sent</th>
          <th class="num">Value</th>
          <th>Unit</th>
          {shown.map((c) => (
            <th>{c.head}</th>
          ))}
          <th>Outcome</th>
          <th>Code</th>
          <th>Repair</th>
        </tr>
      </thead>
      <tbody>
        {props.crossings.map((x) => (
          <tr id={`crossing-${x.id}`} class={x.outcome === "refused" ? "hot" : undefined}>
            <td>{x.direction === "param" ? "in" : "out"}</td>
            <td class="mono">{x.param}</td>
            <td class="mono raw">{x.raw.length > 80 ? `${x.raw.slice(0, 79)}…` : x.raw}</td>
            <td class="num">{magnitude(x.value)}</td>
            <td class="mono">{x.unit ?? ""}</td>
            {shown.map((c) => (
              <td>{c.cell(x) ?? ""}</td>
            ))}
            <td>
              <Badge value={x.outcome} />
            </td>
            <td>
              {x.violation === null ? null : (
                <CodeChip code={x.violation} to={href("/ui/crossings", [["code", x.violation]])} />
              )}
            </td>
            <td class="repair">{repairOf(x, props.violations)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Calls(props: { detail: SessionDetail }): Child {
  if (props.detail.calls.length === 0) return <Empty>This session has no calls yet.</Empty>;
  return (
    <ol class="calls">
      {props.detail.calls.map((call) => (
        <li id={`call-${call.seq}`} class={call.ok ? "call" : "call refused"}>
          <div class="call-head">
            <span class="seq">#{call.seq}</span>
            <a class="tool mono" href={href("/ui/sessions", [["tool", call.tool]])}>
              {call.tool}
            </a>
            {call.toolVersion === null ? (
              <span class="muted">undeclared</span>
            ) : (
              <span class="muted">v{call.toolVersion}</span>
            )}
            <Badge value={call.ok ? (call.guarded ? "ok" : "passed") : "refused"} />
            {call.resultOk === false ? <Badge value="result_refused" /> : null}
            <span class="time">{shortTime(call.createdAt)}</span>
          </div>
          <CrossingTable
            crossings={call.crossings}
            violations={[...call.violations, ...(call.resultViolations ?? [])]}
          />
        </li>
      ))}
    </ol>
  );
}

function Answer(props: { audit: AuditedAnswer }): Child {
  const a = props.audit;
  return (
    <article class="answer">
      <div class="call-head">
        <Badge value={a.ok ? "ok" : "flagged"} />
        <span class="muted">{`audited ${shortTime(a.createdAt)} · ${counted(a.numbers.length, "number")}`}</span>
      </div>
      <p class="answer-text">
        {markAnswer(a.answer, a.numbers).map((part) =>
          typeof part === "string" ? (
            part
          ) : part.crossingId !== null ? (
            <a class={`num-mark st-${part.status}`} href={`#crossing-${part.crossingId}`} title={part.explanation}>
              {part.text}
            </a>
          ) : (
            <mark class={`num-mark st-${part.status}`} title={part.explanation}>
              {part.text}
            </mark>
          ),
        )}
      </p>
      <table class="grid compact">
        <thead>
          <tr>
            <th>Number</th>
            <th>Status</th>
            <th>Traces to</th>
            <th>Why</th>
          </tr>
        </thead>
        <tbody>
          {a.numbers.map((n) => (
            <tr>
              <td class="mono">{n.text}</td>
              <td>
                <Badge value={n.status} />
              </td>
              <td>
                {n.crossingId !== null ? (
                  <a href={`#crossing-${n.crossingId}`}>{`call #${n.callSeq} ${n.source ?? ""}`}</a>
                ) : (
                  (n.source ?? "")
                )}
              </td>
              <td class="repair">{n.explanation}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </article>
  );
}

/** Registers /ui/sessions/{id}. */
export function registerSessionPage(ui: UiApp, deps: UiDeps): void {
  ui.get("/sessions/:id", async (c) => {
    const id = c.req.param("id");
    const detail = await deps.dashboard.session(c.get("teamId"), id);
    if (!detail) return problemPage(c, 404, "Session not found", `This team's ledger has no session '${id}'.`);
    const s = detail.session;
    return c.html(
      <Layout title={`Session ${s.id}`} nav="sessions" team={c.get("teamName")}>
        <div class="head">
          <h1>
            Session <span class="mono">{s.id}</span>
          </h1>
          <p class="meta">
            {`started ${shortTime(s.createdAt)} · ${s.enforcement} mode · ${counted(s.callCount, "call")} · ` +
              `${counted(s.violationCount, "violation")} · ${s.blockedCount} blocked`}
          </p>
          <p class="chips">
            {Object.entries(s.labels).map(([k, v]) => (
              <LabelChip name={k} value={v} to={href("/ui/sessions", [["label", `${k}:${v}`]])} />
            ))}
          </p>
          {s.context === "" ? null : <blockquote class="context">{s.context}</blockquote>}
        </div>
        <h2>Calls</h2>
        <Calls detail={detail} />
        <h2>Audited answers</h2>
        {detail.audits.length === 0 ? (
          <Empty>No answer of this session was audited.</Empty>
        ) : (
          detail.audits.map((a) => <Answer audit={a} />)
        )}
      </Layout>,
    );
  });
}
