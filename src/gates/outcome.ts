// Gate 2, outcome: the output is there, every required deliverable is there, and no placeholder remains.
import type { Result, Task } from "./contracts.js";
import { finding, finish, Tally, type GateOutcome } from "./outcome-kit.js";
import type { Settings } from "./settings.js";

/** Placeholder patterns (our own fixed regexes). The upper-case markers are case-sensitive: Spanish "todo" is a word. */
export const PLACEHOLDERS: readonly RegExp[] = [
  /(?<![\w-])(?:TODO|TBD|TBC|FIXME|XXX)(?![\w-])/g,
  /lorem ipsum/gi,
  /\[insert[^\]\n]*\]/gi,
  /<insert[^>\n]*>/gi,
  /\[placeholder\]/gi,
  /<placeholder>/gi,
  /\{\{[^}\n]*\}\}/g,
  /\[citation needed\]/gi,
  /\?{3,}/g,
];

/** Every distinct placeholder in a text, in order of first appearance. */
export function findPlaceholders(text: string): string[] {
  const hits = PLACEHOLDERS.flatMap((p) => [...text.matchAll(p)].map((m) => ({ at: m.index, text: m[0] })));
  hits.sort((a, b) => a.at - b.at);
  return [...new Set(hits.map((h) => h.text))];
}

/** Gate 2: one check for the output, one per required deliverable, one for placeholders. */
export function outcomeGate(task: Task, result: Result, settings: Settings): GateOutcome {
  const t = new Tally();
  t.check(result.output.trim() !== "", [
    finding("OUTPUT_EMPTY", "The output is empty; the result must contain the text it releases."),
  ]);
  for (const name of task.required_deliverables) {
    // Own keys only: a deliverable named "constructor" must not read Object.prototype.
    const content = Object.hasOwn(result.deliverables, name) ? result.deliverables[name] : undefined;
    t.check(content !== undefined && content.trim() !== "", [
      finding(
        "DELIVERABLE_MISSING",
        content === undefined
          ? `The task requires the deliverable "${name}"; the result's deliverables have no entry "${name}".`
          : `The deliverable "${name}" is empty; send its content.`,
      ),
    ]);
  }
  const where = [
    { label: "the output", text: result.output },
    ...Object.entries(result.deliverables).map(([k, v]) => ({ label: `deliverable "${k}"`, text: v })),
  ];
  const found = where.flatMap((w) => findPlaceholders(w.text).map((p) => ({ p, label: w.label })));
  const distinct = [...new Map(found.map((f) => [f.p, f])).values()];
  t.check(
    distinct.length === 0,
    distinct.map((f) =>
      finding(
        "PLACEHOLDER",
        `${f.label[0]?.toUpperCase()}${f.label.slice(1)} still contains the placeholder "${f.p}"; replace it with the finished content.`,
      ),
    ),
  );
  return finish(t, settings.global.warning_penalty);
}
