// /ui/crossings: every crossing of the team, newest first; the violation codes as chips with their counts filter the
// list, and so does the tool.
import type { Child } from "hono/jsx";
import { Badge, CodeChip, Empty, Pager, swapTo } from "../components.js";
import type { UiApp, UiDeps } from "../env.js";
import { cleanUrl, codeOf, cursorOf, one, readParams } from "../filters.js";
import { count, encodeKey, href, magnitude, shortTime, withParam, type Params } from "../format.js";
import { Layout } from "../layout.js";
import type { CrossingRow } from "../../store/model.js";

const NAMES = ["code", "tool", "cursor"] as const;
const PAGE = 100;

function CrossingList(props: { rows: CrossingRow[]; params: Params }): Child {
  return (
    <table class="grid">
      <thead>
        <tr>
          <th>Crossed (UTC)</th>
          <th>Session · call</th>
          <th>Tool</th>
          <th>Dir</th>
          <th>Parameter</th>
          <th>As sent</th>
          <th class="num">Value</th>
          <th>Unit</th>
          <th>Datum</th>
          <th>Quality</th>
          <th>Outcome</th>
          <th>Code</th>
        </tr>
      </thead>
      <tbody>
        {props.rows.map((x) => (
          <tr class={x.outcome === "refused" ? "hot" : undefined}>
            <td class="time">{shortTime(x.createdAt)}</td>
            <td>
              <a class="id" href={`/ui/sessions/${encodeURIComponent(x.sessionId)}#crossing-${x.id}`}>
                {`${x.sessionId.slice(-8)} #${x.seq}`}
              </a>
            </td>
            <td>
              <a class="mono" href={href("/ui/crossings", withParam(props.params, "tool", x.tool))}>
                {x.tool}
              </a>
            </td>
            <td>{x.direction === "param" ? "in" : "out"}</td>
            <td class="mono">{x.param}</td>
            <td class="mono raw">{x.raw.length > 60 ? `${x.raw.slice(0, 59)}…` : x.raw}</td>
            <td class="num">{magnitude(x.value)}</td>
            <td class="mono">{x.unit ?? ""}</td>
            <td>{x.datum ?? ""}</td>
            <td>{x.quality ?? ""}</td>
            <td>
              <Badge value={x.outcome} />
            </td>
            <td>
              {x.violation === null ? null : (
                <CodeChip code={x.violation} to={href("/ui/crossings", withParam(props.params, "code", x.violation))} />
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Registers /ui/crossings. */
export function registerCrossingsPage(ui: UiApp, deps: UiDeps): void {
  ui.get("/crossings", async (c) => {
    const params = readParams(c, NAMES);
    const clean = cleanUrl(c, params);
    if (clean !== null) return c.redirect(clean, 303);
    const code = codeOf(params);
    const tool = one(params, "tool");
    const before = (cursorOf(params, ["number"]) as [number] | null)?.[0] ?? null;
    const teamId = c.get("teamId");
    const [codes, page] = await Promise.all([
      deps.dashboard.codeCounts(teamId),
      deps.dashboard.crossings(teamId, { code, tool, limit: PAGE, before }),
    ]);
    const total = codes.reduce((a, x) => a + x.count, 0);
    return c.html(
      <Layout title="Crossings" nav="crossings" team={c.get("teamName")}>
        <div class="head">
          <h1>Crossings</h1>
          <p class="meta">
            {`${count(total)} ${total === 1 ? "value" : "values"} refused or flagged, by code. Click a code to list only its crossings.`}
          </p>
        </div>
        <div id="crossings-list">
          <p class="chipbar">
            <a
              class={code === undefined ? "chip on" : "chip"}
              href={href("/ui/crossings", withParam(params, "code", null))}
              {...swapTo(href("/ui/crossings", withParam(params, "code", null)), "crossings-list")}
            >
              every crossing
            </a>
            {codes.map((x) => (
              <CodeChip
                code={x.code}
                count={x.count}
                on={x.code === code}
                to={href("/ui/crossings", withParam(params, "code", x.code))}
                swap="crossings-list"
              />
            ))}
          </p>
          {tool === undefined ? null : (
            <p class="active">
              Tool{" "}
              <a
                class="chip on"
                href={href("/ui/crossings", withParam(params, "tool", null))}
                {...swapTo(href("/ui/crossings", withParam(params, "tool", null)), "crossings-list")}
                title="remove this filter"
              >
                {`${tool} ×`}
              </a>
            </p>
          )}
          {page.items.length === 0 ? (
            <Empty>No crossing matches this filter.</Empty>
          ) : (
            <CrossingList rows={page.items} params={params} />
          )}
          <Pager
            path="/ui/crossings"
            params={params}
            next={page.next === null ? null : encodeKey([page.next])}
            target="crossings-list"
            shown={page.items.length}
          />
        </div>
      </Layout>,
    );
  });
}
