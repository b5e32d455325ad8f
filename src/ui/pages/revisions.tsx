// /ui/revisions: each revision of a stored reading (detected when a tool re-read it, or declared), newest first, with
// the released evaluations whose claims rested on the value it replaced.
import type { Child } from "hono/jsx";
import { type WatchStatus, watchStatus } from "../../packs/ogc/watch.js";
import { Badge, Empty, Pager } from "../components.js";
import type { UiApp, UiDeps } from "../env.js";
import { cleanUrl, cursorOf, one, readParams } from "../filters.js";
import { encodeKey, href, magnitude, shortTime, withParam, type Params } from "../format.js";
import { Layout } from "../layout.js";
import type { Revision, RevisionSide } from "../../store/model.js";
import { parseInstant } from "../../query-params.js";

const NAMES = ["source", "since", "cursor"] as const;
const PAGE = 100;

function Side(props: { side: RevisionSide }): Child {
  const s = props.side;
  const text = `${magnitude(s.value)} ${s.unit}${s.quality ? ` · ${s.quality}` : ""}`;
  return s.crossing_id !== null && s.session_id !== null ? (
    <a class="mono" href={`/ui/sessions/${encodeURIComponent(s.session_id)}#crossing-${s.crossing_id}`}>
      {text}
    </a>
  ) : (
    <span class="mono">{text}</span>
  );
}

function RevisionTable(props: { rows: Revision[]; params: Params }): Child {
  return (
    <table class="grid">
      <thead>
        <tr>
          <th>Recorded (UTC)</th>
          <th>Source</th>
          <th>Observed at</th>
          <th>Kind</th>
          <th>Before</th>
          <th>After</th>
          <th>Reason</th>
          <th>By</th>
          <th>Affected evaluations</th>
        </tr>
      </thead>
      <tbody>
        {props.rows.map((r) => (
          <tr class={r.affected.length > 0 ? "hot" : undefined}>
            <td class="time">{shortTime(r.detected_at)}</td>
            <td class="mono">
              {r.source === null ? (
                ""
              ) : (
                <a href={href("/ui/revisions", withParam(props.params, "source", r.source))}>{r.source}</a>
              )}
            </td>
            <td class="time">{r.observed_at ?? ""}</td>
            <td>
              <Badge value={r.kind} />
            </td>
            <td>
              <Side side={r.before} />
            </td>
            <td>
              <Side side={r.after} />
            </td>
            <td class="repair">{r.reason}</td>
            <td>{r.revised_by}</td>
            <td>
              {r.affected.length === 0 ? (
                <span class="muted">none</span>
              ) : (
                r.affected.map((a) => (
                  <div>
                    <a href={`/ui/evaluations/${encodeURIComponent(a.evaluation_id)}`}>{a.task ?? a.evaluation_id}</a>
                    {a.claim_id === null ? null : <span class="muted">{` claim ${a.claim_id}`}</span>}
                  </div>
                ))
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** What the revision watch is doing for the team, in one line. */
function WatchLine(props: { status: WatchStatus }): Child {
  const s = props.status;
  const runs =
    s.last_run === null
      ? "it has not run yet"
      : `last run ${shortTime(s.last_run)}, next ${s.next_run ? shortTime(s.next_run) : "—"}`;
  return (
    <p class="meta" id="revision-watch">
      {`Revision watch: ${s.watched} reading${s.watched === 1 ? "" : "s"} watched (provisional or estimated, under a ` +
        `released evaluation); ${runs}; ${s.requests} request${s.requests === 1 ? "" : "s"} to USGS. ` +
        "What it finds is listed below, revised by usgs.watch."}
    </p>
  );
}

/** Registers /ui/revisions. */
export function registerRevisionsPage(ui: UiApp, deps: UiDeps): void {
  ui.get("/revisions", async (c) => {
    const params = readParams(c, NAMES);
    const clean = cleanUrl(c, params);
    if (clean !== null) return c.redirect(clean, 303);
    const source = one(params, "source");
    const since = one(params, "since");
    const before = cursorOf(params, ["string", "string"]) as [string, string] | null;
    const page = await deps.dashboard.revisions(c.get("teamId"), {
      ...(source === undefined ? {} : { source }),
      ...(since === undefined ? {} : { since: parseInstant(since, "since") }),
      limit: PAGE,
      before,
    });
    const watch = await watchStatus(deps.watch, c.get("teamId"));
    return c.html(
      <Layout title="Revisions" nav="revisions" team={c.get("teamName")}>
        <div class="head">
          <h1>Revisions</h1>
          <p class="meta">
            A reading re-read with another value or quality, or a value declared revised; red rows changed what a
            released evaluation rested on.
          </p>
          {watch === null ? null : <WatchLine status={watch} />}
        </div>
        <form class="filters" method="get" action="/ui/revisions">
          <label>
            Source
            <input name="source" value={source ?? ""} placeholder="e.g. usgs:07374000:00060" />
          </label>
          <label>
            Since (UTC)
            <input name="since" type="date" value={since ?? ""} />
          </label>
          <button type="submit">Filter</button>
          <a class="reset" href="/ui/revisions">
            Clear
          </a>
        </form>
        <div id="revisions-list">
          {page.items.length === 0 ? (
            <Empty>No revision matches this filter.</Empty>
          ) : (
            <RevisionTable rows={page.items} params={params} />
          )}
          <Pager
            path="/ui/revisions"
            params={params}
            next={page.next === null ? null : encodeKey(page.next)}
            target="revisions-list"
            shown={page.items.length}
          />
        </div>
      </Layout>,
    );
  });
}
