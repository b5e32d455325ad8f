// /ui/claims: the team's claim ledger with demotions, watch patterns and the supersedes chain; /ui/claims/{id}: one
// claim, its events, and its key's values across every task's released runs as a strip plot.
import type { Child } from "hono/jsx";
import { tryConvert } from "../../quantity/units.js";
import { type StripPoint, StripPlot } from "../charts/strip.js";
import { Badge, Empty, Pager } from "../components.js";
import type { UiApp, UiDeps } from "../env.js";
import { cleanUrl, cursorOf, one, readParams } from "../filters.js";
import { encodeKey, href, shortTime, withParam } from "../format.js";
import { Layout } from "../layout.js";
import { problemPage } from "../problem.js";
import type { ClaimRow } from "../../store/model.js";
import type { KeyValue } from "../../store/dashboard.js";
import { QueryError } from "../../query-params.js";

const NAMES = ["status", "q", "cursor"] as const;
const STATUSES = ["live", "demoted", "superseded"] as const;
const PAGE = 100;
const QUANTITY = /^\s*([+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?)\s*(.*?)\s*$/i;

/** A claim value as a magnitude and unit ("17.2 ft", 17.2, {"value": 17.2, "unit": "ft"}), or null. Pure. */
export function magnitudeOf(value: unknown): { value: number; unit: string } | null {
  if (typeof value === "number" && Number.isFinite(value)) return { value, unit: "" };
  if (typeof value === "string") {
    const m = QUANTITY.exec(value);
    return m ? { value: Number(m[1]), unit: m[2] ?? "" } : null;
  }
  if (value !== null && typeof value === "object") {
    const q = value as { value?: unknown; unit?: unknown };
    if (typeof q.value === "number" && Number.isFinite(q.value))
      return { value: q.value, unit: typeof q.unit === "string" ? q.unit : "" };
  }
  return null;
}

/** The values as strip points in the first value's unit; values that do not convert are counted apart. Pure. */
export function stripPoints(values: readonly KeyValue[]): { unit: string; points: StripPoint[]; skipped: number } {
  const read = values.map((v) => ({ v, m: magnitudeOf(v.value) }));
  const unit = read.find((r) => r.m !== null)?.m?.unit ?? "";
  const points: StripPoint[] = [];
  let skipped = 0;
  for (const { v, m } of read) {
    const n =
      m === null
        ? null
        : m.unit === unit
          ? m.value
          : unit === "" || m.unit === ""
            ? null
            : tryConvert(m.value, m.unit, unit);
    if (n === null) skipped += 1;
    else
      points.push({
        group: v.task,
        value: n,
        label: `${v.task} · ${shortTime(v.createdAt)} · ${v.text || JSON.stringify(v.value)}`,
      });
  }
  return { unit, points, skipped };
}

const valueText = (v: unknown) => (v === null || v === undefined ? "" : typeof v === "string" ? v : JSON.stringify(v));
const claimLink = (id: string) => (
  <a class="mono" href={`/ui/claims/${encodeURIComponent(id)}`}>
    {id}
  </a>
);

function ClaimTable(props: { rows: ClaimRow[] }): Child {
  return (
    <table class="grid">
      <thead>
        <tr>
          <th>Claim</th>
          <th>Status</th>
          <th>Text</th>
          <th>Key</th>
          <th>Value</th>
          <th>Demotion</th>
          <th>Watch</th>
          <th>Supersedes</th>
          <th>Superseded by</th>
          <th>Updated (UTC)</th>
        </tr>
      </thead>
      <tbody>
        {props.rows.map((r) => (
          <tr class={r.status === "demoted" ? "hot" : undefined}>
            <td>{claimLink(r.id)}</td>
            <td>
              <Badge value={r.status} />
            </td>
            <td>{r.text}</td>
            <td class="mono">{r.key ?? ""}</td>
            <td class="mono">{valueText(r.value)}</td>
            <td class="repair">
              {r.status === "demoted" ? `${r.reason ?? ""}${r.demoted_by ? ` (${r.demoted_by})` : ""}` : ""}
            </td>
            <td class="mono">{r.watch ?? ""}</td>
            <td>{r.supersedes.map((s) => claimLink(s))}</td>
            <td>{r.superseded_by === null ? "" : claimLink(r.superseded_by)}</td>
            <td class="time">{shortTime(r.updated_at)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Registers /ui/claims and /ui/claims/{id}. */
export function registerClaimPages(ui: UiApp, deps: UiDeps): void {
  ui.get("/claims", async (c) => {
    const params = readParams(c, NAMES);
    const clean = cleanUrl(c, params);
    if (clean !== null) return c.redirect(clean, 303);
    const status = one(params, "status");
    if (status !== undefined && !(STATUSES as readonly string[]).includes(status))
      throw new QueryError("status", `status must be live, demoted or superseded, received '${status}'`);
    const after = cursorOf(params, ["string", "string"]) as [string, string] | null;
    const q = one(params, "q");
    const page = await deps.dashboard.claims(c.get("teamId"), {
      status: status as ClaimRow["status"] | undefined,
      ...(q === undefined ? {} : { q }),
      limit: PAGE,
      after,
    });
    return c.html(
      <Layout title="Claims" nav="claims" team={c.get("teamName")}>
        <div class="head">
          <h1>Claims</h1>
          <nav class="windows" aria-label="status">
            {[null, ...STATUSES].map((s) => (
              <a
                class={(status ?? null) === s ? "chip on" : "chip"}
                href={href("/ui/claims", withParam(params, "status", s))}
              >
                {s ?? "all"}
              </a>
            ))}
          </nav>
        </div>
        <form
          class="filters"
          method="get"
          action="/ui/claims"
          hx-get="/ui/claims"
          hx-target="#claims-list"
          hx-select="#claims-list"
          hx-push-url="true"
        >
          {status === undefined ? null : <input type="hidden" name="status" value={status} />}
          <label>
            Search id, text or key
            <input name="q" value={q ?? ""} placeholder="e.g. crest" />
          </label>
          <button type="submit">Search</button>
        </form>
        <div id="claims-list">
          {page.items.length === 0 ? <Empty>No claim matches this filter.</Empty> : <ClaimTable rows={page.items} />}
          <Pager
            path="/ui/claims"
            params={params}
            next={page.next === null ? null : encodeKey(page.next)}
            target="claims-list"
            shown={page.items.length}
          />
        </div>
      </Layout>,
    );
  });

  ui.get("/claims/:id", async (c) => {
    const id = c.req.param("id");
    const d = await deps.dashboard.claim(c.get("teamId"), id);
    if (!d) return problemPage(c, 404, "Claim not found", `This team's ledger has no claim '${id}'.`);
    const k = d.claim;
    const strip = stripPoints(d.values);
    return c.html(
      <Layout title={`Claim ${k.id}`} nav="claims" team={c.get("teamName")}>
        <div class="head">
          <h1>
            Claim <span class="mono">{k.id}</span> <Badge value={k.status} />
          </h1>
        </div>
        <dl class="facts">
          <dt>Text</dt>
          <dd>{k.text}</dd>
          <dt>Key</dt>
          <dd class="mono">{k.key ?? "(none)"}</dd>
          <dt>Value</dt>
          <dd class="mono">{valueText(k.value) || "(none)"}</dd>
          <dt>Watch pattern</dt>
          <dd class="mono">{k.watch ?? "(none)"}</dd>
          {k.status === "demoted" ? <dt>Demoted</dt> : null}
          {k.status === "demoted" ? <dd>{`${k.reason ?? ""} (by ${k.demoted_by ?? "unknown"})`}</dd> : null}
        </dl>
        <h2>Supersedes chain</h2>
        <p class="chain">
          {d.supersedes.length === 0 ? (
            <span class="muted">replaces nothing</span>
          ) : (
            d.supersedes.map((s) => (
              <span>
                {claimLink(s.id)} <Badge value={s.status} />
              </span>
            ))
          )}
          <span class="arrow">→</span>
          <strong class="mono">{k.id}</strong>
          <span class="arrow">→</span>
          {d.supersededBy === null ? (
            <span class="muted">not replaced</span>
          ) : (
            <span>
              {claimLink(d.supersededBy.id)} <Badge value={d.supersededBy.status} />
            </span>
          )}
        </p>
        <h2>History</h2>
        <table class="grid compact">
          <thead>
            <tr>
              <th>When (UTC)</th>
              <th>Event</th>
              <th>Status after</th>
              <th>Reason</th>
              <th>By</th>
              <th>Watch</th>
            </tr>
          </thead>
          <tbody>
            {d.events.map((e) => (
              <tr>
                <td class="time">{shortTime(e.created_at)}</td>
                <td>{e.kind}</td>
                <td>
                  <Badge value={e.status} />
                </td>
                <td>{e.reason ?? ""}</td>
                <td>{e.demoted_by ?? e.superseded_by ?? ""}</td>
                <td class="mono">{e.watch ?? ""}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <h2>{`Values of "${k.key ?? ""}" across released runs`}</h2>
        {k.key === null ? (
          <Empty>This claim has no key, so no run restates it.</Empty>
        ) : strip.points.length === 0 ? (
          <Empty>No released run states a numeric value for this key.</Empty>
        ) : (
          <StripPlot
            label={`Values of ${k.key} by task`}
            unit={strip.unit}
            points={strip.points}
            size={{ width: 1000, height: 0 }}
          />
        )}
        {strip.skipped > 0 ? (
          <p class="muted">{`${strip.skipped} value(s) not shown: not a number in a unit convertible to ${strip.unit || "the first"}.`}</p>
        ) : null}
      </Layout>,
    );
  });
}
