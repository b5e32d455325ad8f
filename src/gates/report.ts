// JSON and Markdown renderings of a release decision.
import type { Finding } from "./contracts.js";
import type { Decision } from "./decision.js";
import { GATE_NAMES } from "./outcome-kit.js";

/** How a Markdown report is titled and what it says about the score. */
export interface MarkdownOptions {
  /** Shown in the heading, such as the input file name or the evaluation id. */
  title?: string;
  /** Whether gates were conjunctive (the default) and the score threshold, for the score sentence. */
  conjunctive?: boolean;
  minScore?: number;
}

/** The decision as pretty JSON text, gates in report order. */
export function renderJson(decision: Decision): string {
  return `${JSON.stringify(decision, null, 2)}\n`;
}

const score = (s: number | null): string => (s === null ? "n/a" : s.toFixed(1));
// Table cells and list items must not break the Markdown around them.
const cell = (s: string): string => s.replace(/\|/g, "\\|").replace(/\r?\n/g, " ");

function findingLine(f: Finding): string {
  const where = [f.claim_id !== undefined ? `claim ${f.claim_id}` : "", f.run !== undefined ? `run ${f.run}` : ""]
    .filter(Boolean)
    .join(", ");
  const level = f.severity === "error" ? "" : ` [${f.severity}]`;
  return `- \`${f.code}\`${level}${where ? ` (${where})` : ""}: ${cell(f.message)}`;
}

/** The decision as a Markdown report: verdict, score sentence, one table row per gate, then findings by gate. */
export function renderMarkdown(decision: Decision, options: MarkdownOptions = {}): string {
  const conjunctive = options.conjunctive ?? true;
  const lines: string[] = [`# Release report${options.title ? `: ${options.title}` : ""}`, ""];
  const verdict = decision.status === "released" ? "RELEASED" : "BLOCKED";
  lines.push(
    `**Release: ${verdict}**${decision.blocked_by.length > 0 ? ` (blocked by ${decision.blocked_by.join(", ")})` : ""}`,
    "",
  );
  lines.push(
    conjunctive
      ? `Overall score: ${decision.overall_score.toFixed(1)} of 100. This figure is for trend tracking; gates are conjunctive and the score does not block.`
      : `Overall score: ${decision.overall_score.toFixed(1)} of 100. Gates are not conjunctive: a blocked gate ` +
          `blocks the release, and so does a score below ${options.minScore ?? "the minimum"}.`,
  );
  lines.push("", "| Gate | Status | Score | Errors | Warnings |", "|---|---|---:|---:|---:|");
  for (const g of GATE_NAMES) {
    const o = decision.gates[g];
    const count = (sev: Finding["severity"]): number => o.findings.filter((f) => f.severity === sev).length;
    lines.push(`| ${g} | ${o.status} | ${score(o.score)} | ${count("error")} | ${count("warning")} |`);
  }
  lines.push("", "## Findings", "");
  const sections = GATE_NAMES.filter((g) => decision.gates[g].findings.length > 0);
  if (decision.findings.length > 0) {
    lines.push("### decision", "", ...decision.findings.map(findingLine), "");
  }
  for (const g of sections) {
    lines.push(`### ${g}: ${decision.gates[g].status}`, "", ...decision.gates[g].findings.map(findingLine), "");
  }
  if (sections.length === 0 && decision.findings.length === 0) lines.push("No findings.", "");
  return `${lines.join("\n").trimEnd()}\n`;
}
