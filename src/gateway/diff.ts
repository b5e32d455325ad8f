// A readable difference between two tool definitions: one entry per leaf that was added, removed or changed, with
// its path (`inputSchema.properties.site.type`), for the dashboard's drift view and `agent-ledger pins list`.
import { canonicalJson } from "../provenance/canonical-json.js";
import type { Drift, ToolDefinition } from "./pins.js";

/** One difference: a value only before (`removed`), only after (`added`), or in both but unequal (`changed`). */
export type DiffEntry = { path: string; kind: "added" | "removed" | "changed"; before?: unknown; after?: unknown };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const same = (a: unknown, b: unknown) => canonicalJson(a) === canonicalJson(b);

function walk(before: unknown, after: unknown, path: string, out: DiffEntry[]): void {
  if (same(before, after)) return;
  if (isObject(before) && isObject(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    for (const k of keys) {
      const p = path ? `${path}.${k}` : k;
      if (!(k in after)) out.push({ path: p, kind: "removed", before: before[k] });
      else if (!(k in before)) out.push({ path: p, kind: "added", after: after[k] });
      else walk(before[k], after[k], p, out);
    }
    return;
  }
  // Arrays (enum, required) and scalars are compared whole: an index-by-index diff of a reordered list misleads.
  out.push({ path, kind: "changed", before, after });
}

/** The leaf differences between two definitions, paths in key order. */
export function definitionDiff(before: ToolDefinition, after: ToolDefinition): DiffEntry[] {
  const out: DiffEntry[] = [];
  walk(before, after, "", out);
  return out;
}

/** A drift as plain lines: what happened, then one line per difference of a changed tool. */
export function driftLines(drift: Drift): string[] {
  const head = `${drift.tool}: ${drift.kind}, detected ${drift.detected_at}, ${drift.approved_at ? `approved ${drift.approved_at}` : "not approved"}`;
  if (drift.kind !== "changed" || !drift.before || !drift.after) return [head];
  const show = (v: unknown) => (v === undefined ? "(absent)" : JSON.stringify(v));
  return [
    head,
    ...definitionDiff(drift.before, drift.after).map((d) => `  ${d.path}: ${show(d.before)} -> ${show(d.after)}`),
  ];
}
