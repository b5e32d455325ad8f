// /ui: the overview of a window (7, 30 or 90 days to now): headline figures, calls per day by outcome, refusals by
// code over time, evaluations released and blocked over time.
import type { Child } from "hono/jsx";
import type { Overview } from "../../store/dashboard.js";
import { type BarSeries, StackedBars } from "../charts/bars.js";
import { CodeChip, Stat } from "../components.js";
import type { UiApp, UiDeps } from "../env.js";
import { one, readParams } from "../filters.js";
import { count, counted, daysBetween, href, percent } from "../format.js";
import { Layout } from "../layout.js";
import { QueryError } from "../../query-params.js";

/** The windows the overview offers, in days. */
export const WINDOWS = [7, 30, 90] as const;
const SIZE = { width: 680, height: 210 };
/** Codes drawn as their own colour; the rest are summed as "other". */
const CODE_COLOURS = 7;

/** The values of `rows` on each day, zero where a day has no row. */
export function perDay<R extends { day: string }>(days: readonly string[], rows: readonly R[], read: (r: R) => number) {
  const at = new Map(rows.map((r) => [r.day, read(r)] as const));
  return days.map((d) => at.get(d) ?? 0);
}

/** Refusals by code as stacked series: the most frequent codes first, the tail summed as "other". */
export function codeSeries(days: readonly string[], rows: Overview["refusalsByCode"]): BarSeries[] {
  const totals = new Map<string, number>();
  for (const r of rows) totals.set(r.code, (totals.get(r.code) ?? 0) + r.count);
  const ranked = [...totals.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([c]) => c);
  const shown = ranked.length > CODE_COLOURS + 1 ? ranked.slice(0, CODE_COLOURS) : ranked;
  const series = shown.map((code, i) => ({
    key: `c${i}`,
    name: code,
    values: perDay(
      days,
      rows.filter((r) => r.code === code),
      (r) => r.count,
    ),
  }));
  const rest = rows.filter((r) => !shown.includes(r.code));
  if (rest.length > 0) {
    const sums = new Map<string, number>();
    for (const r of rest) sums.set(r.day, (sums.get(r.day) ?? 0) + r.count);
    series.push({ key: "c7", name: "other", values: days.map((d) => sums.get(d) ?? 0) });
  }
  return series;
}

function Figures(props: { o: Overview; days: number }): Child {
  const o = props.o;
  return (
    <div class="stats">
      <Stat
        label={o.sessions === 1 ? "session" : "sessions"}
        value={count(o.sessions)}
        note={`started in the last ${props.days} days`}
      />
      <Stat
        label={o.calls === 1 ? "tool call" : "tool calls"}
        value={count(o.calls)}
        note={`${count(o.refusedCalls)} refused`}
      />
      <Stat
        label="refusal rate"
        value={percent(o.refusedCalls, o.calls)}
        note="calls refused at the boundary"
        tone={o.refusedCalls > 0 ? "bad" : "ok"}
      />
      <Stat
        label="unsourced numbers"
        value={percent(o.unsourcedNumbers, o.auditedNumbers)}
        note={`${count(o.unsourcedNumbers)} of ${counted(o.auditedNumbers, "audited number")}`}
        tone={o.unsourcedNumbers > 0 ? "bad" : "ok"}
      />
      <Stat
        label={o.blockedEvaluations === 1 ? "blocked evaluation" : "blocked evaluations"}
        value={count(o.blockedEvaluations)}
        note={`of ${counted(o.evaluations, "evaluation")}`}
        tone={o.blockedEvaluations > 0 ? "bad" : "ok"}
      />
    </div>
  );
}

/** Registers /ui. */
export function registerOverviewPage(ui: UiApp, deps: UiDeps): void {
  ui.get("/", async (c) => {
    const raw = one(readParams(c, ["days"]), "days") ?? "30";
    const days = WINDOWS.find((d) => String(d) === raw);
    if (days === undefined)
      throw new QueryError("days", `days must be one of ${WINDOWS.join(", ")}, received '${raw}'`);
    const now = deps.clock.now();
    // Whole UTC days: the window ends at the end of today and starts `days` days earlier.
    const until = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1)).toISOString();
    const since = new Date(Date.parse(until) - days * 86_400_000).toISOString();
    const o = await deps.dashboard.overview(c.get("teamId"), { since, until }, now);
    const axis = daysBetween(since, until);
    const codes = [...new Set(o.refusalsByCode.map((r) => r.code))];
    return c.html(
      <Layout title="Overview" nav="overview" team={c.get("teamName")}>
        <div class="head">
          <h1>Overview</h1>
          <nav class="windows" aria-label="window">
            {WINDOWS.map((d) => (
              <a class={d === days ? "chip on" : "chip"} href={href("/ui", [["days", String(d)]])}>
                {`${d} days`}
              </a>
            ))}
          </nav>
          <p class="meta">{`${since.slice(0, 10)} to ${until.slice(0, 10)} (UTC, end exclusive)`}</p>
        </div>
        <Figures o={o} days={days} />
        <div class="panels">
          <section class="panel">
            <h2>Calls per day</h2>
            <StackedBars
              label="Calls per day: converted, passed and refused"
              categories={axis}
              series={[
                { key: "passed", name: "passed", values: perDay(axis, o.callsPerDay, (r) => r.passed) },
                { key: "converted", name: "converted", values: perDay(axis, o.callsPerDay, (r) => r.converted) },
                { key: "refused", name: "refused", values: perDay(axis, o.callsPerDay, (r) => r.refused) },
              ]}
              size={SIZE}
            />
          </section>
          <section class="panel">
            <h2>Refusals by code</h2>
            <StackedBars
              label="Refused values per day by violation code"
              categories={axis}
              series={codeSeries(axis, o.refusalsByCode)}
              size={SIZE}
            />
            <p class="chipbar">
              {codes.map((code) => (
                <CodeChip code={code} to={href("/ui/crossings", [["code", code]])} />
              ))}
            </p>
          </section>
          <section class="panel">
            <h2>Evaluations</h2>
            <StackedBars
              label="Evaluations per day: released and blocked"
              categories={axis}
              series={[
                { key: "released", name: "released", values: perDay(axis, o.evaluationsPerDay, (r) => r.released) },
                { key: "blocked", name: "blocked", values: perDay(axis, o.evaluationsPerDay, (r) => r.blocked) },
              ]}
              size={SIZE}
            />
          </section>
        </div>
      </Layout>,
    );
  });
}
