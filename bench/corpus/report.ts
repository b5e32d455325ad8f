// The corpus benchmark's Markdown: the agreement tables and every disagreement grouped by its reason.
import { type Disagreement, REASONS, type Reason, type Scores } from "./score.js";

/** How the run was made. */
export type RunInfo = {
  command: string;
  runs: number;
  of: number;
  stride: number;
  loadS: number;
  replayS: number;
  requests: number;
  date: string;
};

const pct = (n: number, d: number) => (d === 0 ? "–" : `${((100 * n) / d).toFixed(1)} %`);
const table = (head: string[], rows: (string | number)[][]) =>
  [`| ${head.join(" | ")} |`, `|${head.map(() => "---").join("|")}|`, ...rows.map((r) => `| ${r.join(" | ")} |`)].join(
    "\n",
  );

/** Disagreements grouped by reason: count, the reason, and up to `shown` run ids. */
function reasons(ds: Disagreement[], shown = 6): string {
  if (ds.length === 0) return "No disagreement.";
  const by = new Map<Reason, string[]>();
  for (const d of ds) for (const r of d.reasons) by.set(r, [...(by.get(r) ?? []), d.run]);
  const rows = [...by.entries()]
    .sort((a, b) => b[1].length - a[1].length)
    .map(([r, runs]) => [
      runs.length,
      REASONS[r].kind,
      REASONS[r].text,
      `${runs.slice(0, shown).join(", ")}${runs.length > shown ? ", …" : ""}`,
    ]);
  return table(["runs", "kind", "reason", "runs (first few)"], rows);
}

/** Renders the section "## Corpus replay" of bench/RESULTS.md. */
export function renderReport(s: Scores, info: RunInfo): string {
  const out: string[] = [];
  const scope =
    info.stride === 1
      ? `all ${info.runs.toLocaleString("en")} runs`
      : `a deterministic sample of ${info.runs} of ${info.of.toLocaleString("en")} runs (every ${info.stride}th line)`;
  out.push("## Corpus replay", "");
  out.push(
    `Command: \`${info.command}\` (bench/corpus/run.ts). Run on ${info.date} over ${scope} of \`../shared/corpus\`.`,
  );
  out.push(
    "The real app (`createApp` over a temporary SQLite file, requests through `app.request`): one team per task with the",
    "task's tools and the corpus's registered datum offsets; one session per run (the question as context, `warn` where the",
    "harness did not enforce, `enforce` where it did); every recorded call, every recorded result (also where our guard",
    "refused the call: the run went on with it), an audit of the final answer, then `POST /v1/replay` of every session.",
    "",
  );
  out.push(
    table(
      ["what", "figure"],
      [
        ["runs loaded", info.runs.toLocaleString("en")],
        ["HTTP requests to load them", info.requests.toLocaleString("en")],
        ["load wall time", `${info.loadS.toFixed(1)} s`],
        ["replay wall time (`POST /v1/replay` of every session)", `${info.replayS.toFixed(1)} s`],
        [
          "sessions replayed identical",
          `${s.replay.identical} / ${s.runs}${s.replay.differing.length ? ` (differ: ${s.replay.differing.slice(0, 5).join(", ")})` : ""}`,
        ],
      ],
    ),
  );
  out.push("");

  out.push(
    "### Unconverted values reaching a tool (`derived.unit_carry_over_sent`, `derived.datum_carry_over_sent`)",
    "",
  );
  out.push(
    "Per run. *caught* = ours raised `unconverted_carry_over` (unit or datum reason) on a hazard parameter; *stopped, other code* =",
    "ours refused or flagged that call for another reason first; *false alarms* = a carry-over flagged in a run the labels say sent none.",
    "",
  );
  for (const c of s.carry) {
    const rows = c.rows.map((r) => [
      r.condition,
      r.labelled,
      `${r.caught} (${pct(r.caught, r.labelled)})`,
      r.stoppedOtherCode,
      r.missed,
      r.notLabelled,
      r.falseAlarms,
    ]);
    const t = c.rows.reduce(
      (a, r) => ({
        l: a.l + r.labelled,
        c: a.c + r.caught,
        o: a.o + r.stoppedOtherCode,
        m: a.m + r.missed,
        n: a.n + r.notLabelled,
        f: a.f + r.falseAlarms,
      }),
      { l: 0, c: 0, o: 0, m: 0, n: 0, f: 0 },
    );
    rows.push(["**all**", t.l, `${t.c} (${pct(t.c, t.l)})`, t.o, t.m, t.n, t.f]);
    out.push(`**${c.kind}** (\`${c.label}\`)`, "");
    out.push(
      table(
        ["condition", "labelled sent", "caught", "stopped, other code", "missed", "labelled not sent", "false alarms"],
        rows,
      ),
      "",
    );
    out.push(`Per hazard call, by the corpus's argument class (README §4) → what ours did with that argument:`, "");
    out.push(
      table(
        ["class", "calls", "ours"],
        c.byClass.map((b) => [
          b.cls,
          b.calls,
          Object.entries(b.outcomes)
            .sort((x, y) => y[1] - x[1])
            .map(([k, v]) => `${k} ${v}`)
            .join(", "),
        ]),
      ),
      "",
    );
    out.push(reasons(c.disagreements), "");
  }

  const v = s.violations;
  out.push("### Violations per run (`replay.violations`)", "");
  out.push(
    `Strict conditions (\`guarded\`, \`guarded_repair\`): ours = calls refused (call or result). Same count in **${v.strictAgree} / ${v.strictRuns}** runs (${pct(v.strictAgree, v.strictRuns)}).`,
    `Where the harness did not enforce (\`baseline\`, \`schema_only\`, ${v.warnRuns} runs) it recorded 0 by construction and ours, in \`warn\`, refuses nothing;`,
    `ours flagged would-block calls in ${v.warnRunsFlagged} of those runs (${v.warnCallsFlagged} calls: ${Object.entries(
      v.warnByCode,
    )
      .sort((a, b) => b[1] - a[1])
      .map(([k, n]) => `${k} ${n}`)
      .join(", ")}).`,
    "",
  );
  out.push(
    `Differing calls by reason: ${
      Object.entries(v.callReasons)
        .map(([k, n]) => `${k} ${n}`)
        .join(", ") || "none"
    }.`,
    "",
  );
  out.push(reasons(v.disagreements), "");

  const a = s.audit;
  out.push("### Audit flags (`replay.audit`: flagged = unsourced or mislabelled > 0)", "");
  out.push(
    `Runs with a final answer and the corpus's replayed audit (the batch's own audit code, \`commit\`); *recorded* is the harness's`,
    `\`labels.audit_flagged\` for comparison. ${a.unlabelled} more answers (blocked or unusable runs) were audited with nothing to compare.`,
    "",
  );
  const rows = a.rows.map((r) => [
    r.batch,
    r.commit,
    r.runs,
    r.recorded,
    r.theirs,
    r.ours,
    r.both,
    r.onlyTheirs,
    r.onlyOurs,
    pct(r.runs - r.onlyTheirs - r.onlyOurs, r.runs),
  ]);
  const t = a.rows.reduce(
    (x, r) => ({
      runs: x.runs + r.runs,
      rec: x.rec + r.recorded,
      th: x.th + r.theirs,
      ou: x.ou + r.ours,
      b: x.b + r.both,
      ot: x.ot + r.onlyTheirs,
      oo: x.oo + r.onlyOurs,
    }),
    { runs: 0, rec: 0, th: 0, ou: 0, b: 0, ot: 0, oo: 0 },
  );
  rows.push(["**all**", "", t.runs, t.rec, t.th, t.ou, t.b, t.ot, t.oo, pct(t.runs - t.ot - t.oo, t.runs)]);
  out.push(
    table(
      [
        "batch",
        "commit",
        "runs",
        "recorded flagged",
        "replay flagged",
        "ours flagged",
        "both",
        "only replay",
        "only ours",
        "agreement",
      ],
      rows,
    ),
    "",
  );
  out.push(
    `Claim by claim (texts aligned in order): ${a.claims.aligned} claims read alike, same status for ${a.claims.same} (${pct(a.claims.same, a.claims.aligned)});`,
    `status changes: ${
      Object.entries(a.claims.confusion)
        .sort((x, y) => y[1] - x[1])
        .map(([k, n]) => `${k} ${n}`)
        .join(", ") || "none"
    }.`,
    `${a.claims.onlyTheirs} claims only the batch's audit read and ${a.claims.onlyOurs} only ours read (tokenising: scientific notation, \`×10ⁿ\`, numbers the older code skipped).`,
    "",
  );
  out.push(reasons(a.disagreements), "");
  return out.join("\n");
}
