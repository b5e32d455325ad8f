// /ui/sessions: the team's sessions filtered by label, tool, violation code and time, every filter in the URL,
// keyset pages, and CSV and JSON Lines exports of the current filter.
import type { Child } from "hono/jsx";
import { VIOLATION_CODES } from "../../quantity/errors.js";
import { CodeChip, Empty, LabelChip, Pager } from "../components.js";
import type { UiApp, UiDeps } from "../env.js";
import { all, cleanUrl, cursorOf, one, readParams, sessionFilter, type SessionParams } from "../filters.js";
import {
  addParam,
  count,
  csvCell,
  encodeKey,
  href,
  removeParam,
  shortTime,
  withParam,
  type Params,
} from "../format.js";
import { Layout } from "../layout.js";
import type { SessionRow } from "../../store/model.js";
import type { SessionListRow } from "../../store/dashboard.js";

const NAMES = ["label", "tool", "code", "since", "until", "cursor"] as const;
const PAGE = 50;
const EXPORT_PAGE = 500;
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/** The filter form: a plain GET form; with htmx it swaps only the list and pushes the URL it asked for. */
function FilterForm(props: { params: Params }): Child {
  const labels = all(props.params, "label");
  const dateInput = (name: "since" | "until", label: string) => {
    const v = one(props.params, name) ?? "";
    return (
      <label>
        {label}
        <input name={name} type={v === "" || DATE_ONLY.test(v) ? "date" : "text"} value={v} />
      </label>
    );
  };
  return (
    <form
      class="filters"
      method="get"
      action="/ui/sessions"
      hx-get="/ui/sessions"
      hx-target="#sessions-list"
      hx-select="#sessions-list"
      hx-push-url="true"
    >
      {(labels.length === 0 ? [""] : labels).map((l) => (
        <label>
          Label
          <input name="label" value={l} placeholder="key:value" />
        </label>
      ))}
      <label>
        Tool
        <input name="tool" value={one(props.params, "tool") ?? ""} placeholder="tool name" />
      </label>
      <label>
        Violation code
        <select name="code">
          <option value="">any</option>
          {VIOLATION_CODES.map((c) => (
            <option value={c} selected={one(props.params, "code") === c}>
              {c}
            </option>
          ))}
        </select>
      </label>
      {dateInput("since", "From (UTC)")}
      {dateInput("until", "Before (UTC)")}
      <button type="submit">Filter</button>
      <a class="reset" href="/ui/sessions">
        Clear
      </a>
    </form>
  );
}

function SessionTable(props: { rows: SessionListRow[]; params: Params }): Child {
  const by = (name: string, value: string) => href("/ui/sessions", addParam(props.params, name, value));
  const only = (name: string, value: string) => href("/ui/sessions", withParam(props.params, name, value));
  return (
    <table class="grid">
      <thead>
        <tr>
          <th>Started (UTC)</th>
          <th>Session</th>
          <th>Labels</th>
          <th class="num">Calls</th>
          <th class="num">Violations</th>
          <th class="num">Blocked</th>
          <th>Codes</th>
          <th>Context</th>
        </tr>
      </thead>
      <tbody>
        {props.rows.map((s) => (
          <tr class={s.blockedCount > 0 ? "hot" : undefined}>
            <td class="time">{shortTime(s.createdAt)}</td>
            <td>
              <a class="id" href={`/ui/sessions/${encodeURIComponent(s.id)}`}>
                {s.id}
              </a>
              {s.enforcement === "warn" ? <span class="badge b-warned">warn</span> : null}
            </td>
            <td class="chips">
              {Object.entries(s.labels).map(([k, v]) => (
                <LabelChip name={k} value={v} to={by("label", `${k}:${v}`)} swap="sessions-list" />
              ))}
            </td>
            <td class="num">{count(s.callCount)}</td>
            <td class="num">{count(s.violationCount)}</td>
            <td class="num">{count(s.blockedCount)}</td>
            <td class="chips">
              {s.codes.map((c) => (
                <CodeChip code={c.code} count={c.count} to={only("code", c.code)} swap="sessions-list" />
              ))}
            </td>
            <td class="context">{s.context.length > 140 ? `${s.context.slice(0, 139)}…` : s.context}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Chips naming each active filter, each with a link that removes it. */
function ActiveFilters(props: { params: Params }): Child {
  const active = props.params.filter(([k]) => k !== "cursor");
  if (active.length === 0) return null;
  return (
    <p class="active">
      Filtered by{" "}
      {active.map(([k, v]) => (
        <a class="chip on" href={href("/ui/sessions", removeParam(props.params, k, v))} title="remove this filter">
          {`${k} ${v} ×`}
        </a>
      ))}
    </p>
  );
}

async function* exportPages(deps: UiDeps, teamId: string, f: SessionParams): AsyncGenerator<SessionRow[]> {
  let cursor: readonly [string, string] | null = null;
  do {
    const page = await deps.dashboard.sessions(teamId, { ...f, limit: EXPORT_PAGE, cursor });
    yield page.items;
    cursor = page.next;
  } while (cursor !== null);
}

const CSV_HEADER = "id,created_at,enforcement,calls,violations,would_block,labels,context\r\n";
const csvLine = (s: SessionRow) =>
  `${[
    s.id,
    s.createdAt,
    s.enforcement,
    s.callCount,
    s.violationCount,
    s.blockedCount,
    Object.entries(s.labels)
      .map(([k, v]) => `${k}:${v}`)
      .join(" "),
    s.context,
  ]
    .map(csvCell)
    .join(",")}\r\n`;
// The same fields as GET /v1/sessions answers, so an export reads like the API.
const jsonLine = (s: SessionRow) =>
  `${JSON.stringify({
    id: s.id,
    context: s.context,
    enforcement: s.enforcement,
    labels: s.labels,
    calls: s.callCount,
    violations: s.violationCount,
    would_block: s.blockedCount,
    created_at: s.createdAt,
  })}\n`;

function streamOf(pages: AsyncGenerator<SessionRow[]>, header: string, line: (s: SessionRow) => string) {
  const enc = new TextEncoder();
  return new ReadableStream<Uint8Array>({
    start(ctl) {
      if (header !== "") ctl.enqueue(enc.encode(header));
    },
    async pull(ctl) {
      const next = await pages.next();
      if (next.done) ctl.close();
      else ctl.enqueue(enc.encode(next.value.map(line).join("")));
    },
  });
}

/** Registers /ui/sessions, /ui/sessions.csv and /ui/sessions.jsonl. */
export function registerSessionsPage(ui: UiApp, deps: UiDeps): void {
  ui.get("/sessions", async (c) => {
    const params = readParams(c, NAMES);
    const clean = cleanUrl(c, params);
    if (clean !== null) return c.redirect(clean, 303);
    const filter = sessionFilter(params);
    const cursor = cursorOf(params, ["string", "string"]) as [string, string] | null;
    const page = await deps.dashboard.sessions(c.get("teamId"), { ...filter, limit: PAGE, cursor });
    const exportParams = params.filter(([k]) => k !== "cursor");
    return c.html(
      <Layout title="Sessions" nav="sessions" team={c.get("teamName")}>
        <div class="head">
          <h1>Sessions</h1>
        </div>
        {/* The form and the export links are inside the swapped element, so they follow the filter a swap applied. */}
        <div id="sessions-list">
          <FilterForm params={params} />
          <div class="listbar">
            <ActiveFilters params={params} />
            <p class="exports">
              Export this filter: <a href={href("/ui/sessions.csv", exportParams)}>CSV</a> ·{" "}
              <a href={href("/ui/sessions.jsonl", exportParams)}>JSON Lines</a>
            </p>
          </div>
          {page.items.length === 0 ? (
            <Empty>No session matches this filter.</Empty>
          ) : (
            <SessionTable rows={page.items} params={params} />
          )}
          <Pager
            path="/ui/sessions"
            params={params}
            next={page.next === null ? null : encodeKey(page.next)}
            target="sessions-list"
            shown={page.items.length}
          />
        </div>
      </Layout>,
    );
  });

  const exporter = (type: string, ext: string, header: string, line: (s: SessionRow) => string) =>
    ui.get(`/sessions.${ext}`, (c) => {
      const filter = sessionFilter(readParams(c, NAMES));
      c.header("Content-Type", type);
      c.header("Content-Disposition", `attachment; filename="sessions.${ext}"`);
      return c.body(streamOf(exportPages(deps, c.get("teamId"), filter), header, line));
    });
  exporter("text/csv; charset=utf-8", "csv", CSV_HEADER, csvLine);
  exporter("application/x-ndjson; charset=utf-8", "jsonl", "", jsonLine);
}
