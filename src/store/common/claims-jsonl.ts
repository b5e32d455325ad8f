// The original ledger format (`memory/claims.jsonl`): one claim a line. Parsing never throws: bad lines are reported.
import { illFormedTextPath, InvalidTextError } from "../../text.js";
import { z } from "zod";
import { describeValue } from "../../gates/contracts.js";
import { compileWatch } from "../../gates/watch.js";

/** The statuses a ledger line may carry: the original's live and demoted, and our superseded (which exports write). */
export const LINE_STATUSES = ["live", "demoted", "superseded"] as const;

const optionalText = (max: number) => z.string().max(max).nullable().optional();

/** One ledger line; fields other than these are ignored, as in the original. */
const LineSchema = z.object({
  id: z.string().trim().min(1, "id must be a non-empty string").max(256),
  status: z.enum(LINE_STATUSES, { error: 'status must be "live" or "demoted" (or "superseded")' }),
  text: z.string().max(10_000).nullable().optional(),
  key: optionalText(256),
  value: z.unknown().optional(),
  reason: optionalText(10_000),
  demoted_by: optionalText(1_000),
  watch: optionalText(10_000),
  supersedes: z
    .union([z.string().min(1), z.array(z.string().min(1))])
    .nullable()
    .optional(),
  superseded_by: optionalText(256),
});

/** A ledger claim as read from a line: absent fields are null, `supersedes` is a list. */
export interface LedgerLine {
  id: string;
  status: (typeof LINE_STATUSES)[number];
  text: string;
  key: string | null;
  value: unknown;
  reason: string | null;
  demoted_by: string | null;
  watch: string | null;
  supersedes: string[];
  superseded_by: string | null;
}

/** A line that was not imported, and why. */
export interface SkippedLine {
  line: number;
  reason: string;
}

/** A claim that was imported with a field the gates cannot use (a watch RE2 refuses, an unknown supersedes id). */
export interface LineWarning {
  line: number;
  id: string;
  field: string;
  reason: string;
}

/** What a ledger text holds: claims with their line numbers, lines skipped, and warnings about usable lines. */
export interface ParsedLedger {
  claims: { line: number; claim: LedgerLine }[];
  skipped: SkippedLine[];
  warnings: LineWarning[];
}

function describeIssue(issue: z.core.$ZodIssue, raw: Record<string, unknown>): string {
  const field = issue.path.map(String).join(".");
  if (issue.path.length === 1 && !(field in raw)) return `${field} is missing`;
  if (issue.code === "invalid_type" && issue.path.length === 1)
    return `${field} must be a ${issue.expected}, received ${describeValue(raw[field])}`;
  return field ? `${field}: ${issue.message}` : issue.message;
}

/** Deepest nesting a line may have; deeper values overflow the stack in JSON.stringify when stored (as the API's body guard). */
const MAX_LINE_DEPTH = 128;

// Iterative on purpose: the values this looks at are the ones too deep for recursion.
function tooDeep(value: unknown): boolean {
  const stack: { v: unknown; depth: number }[] = [{ v: value, depth: 0 }];
  while (stack.length > 0) {
    const { v, depth } = stack.pop()!;
    if (v === null || typeof v !== "object") continue;
    if (depth >= MAX_LINE_DEPTH) return true;
    for (const x of Array.isArray(v) ? v : Object.values(v)) stack.push({ v: x, depth: depth + 1 });
  }
  return false;
}

/** Reads one line's JSON object into a claim, or the reason it cannot be one. */
export function readLedgerLine(text: string): { claim: LedgerLine } | { reason: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    return { reason: `not valid JSON (${(e as Error).message}); each line must be one JSON object` };
  }
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    return {
      reason: `not a JSON object (received ${Array.isArray(raw) ? "an array" : raw === null ? "null" : typeof raw}); each line must be one claim object`,
    };
  }
  if (tooDeep(raw))
    return { reason: `objects and arrays are nested deeper than ${MAX_LINE_DEPTH} levels; send a flatter claim` };
  const badText = illFormedTextPath(raw);
  if (badText !== null) return { reason: new InvalidTextError(badText).message };
  const parsed = LineSchema.safeParse(raw);
  if (!parsed.success)
    return { reason: parsed.error.issues.map((i) => describeIssue(i, raw as Record<string, unknown>)).join("; ") };
  const l = parsed.data;
  const supersedes =
    l.supersedes === undefined || l.supersedes === null
      ? []
      : Array.isArray(l.supersedes)
        ? l.supersedes
        : [l.supersedes];
  return {
    claim: {
      id: l.id,
      status: l.status,
      text: l.text ?? "",
      key: l.key ?? null,
      value: l.value ?? null,
      reason: l.reason ?? null,
      demoted_by: l.demoted_by ?? null,
      watch: l.watch ?? null,
      supersedes,
      superseded_by: l.superseded_by ?? null,
    },
  };
}

/** Why RE2 cannot use a watch pattern, or null when it can (or there is none). */
export function watchProblem(watch: string | null): string | null {
  if (watch === null) return null;
  const compiled = compileWatch(watch);
  return compiled.ok ? null : compiled.reason;
}

/**
 * Parses JSON Lines text line by line. A UTF-8 byte order mark is dropped, blank lines are ignored, a malformed
 * line is skipped and reported as {line, reason}, a repeated id is skipped, and a watch that RE2 refuses is
 * kept and reported as a warning. Never throws.
 */
export function parseLedgerText(text: string): ParsedLedger {
  const out: ParsedLedger = { claims: [], skipped: [], warnings: [] };
  const seen = new Map<string, number>();
  text
    .replace(/^\uFEFF/, "")
    .split(/\r?\n/)
    .forEach((body, i) => {
      const line = i + 1;
      if (body.trim() === "") return;
      const read = readLedgerLine(body);
      if ("reason" in read) {
        out.skipped.push({ line, reason: read.reason });
        return;
      }
      const first = seen.get(read.claim.id);
      if (first !== undefined) {
        out.skipped.push({
          line,
          reason: `the id ${JSON.stringify(read.claim.id)} was already given on line ${first}; each claim appears once`,
        });
        return;
      }
      seen.set(read.claim.id, line);
      const problem = watchProblem(read.claim.watch);
      if (problem !== null) out.warnings.push({ line, id: read.claim.id, field: "watch", reason: problem });
      out.claims.push({ line, claim: read.claim });
    });
  return out;
}

/** One claim as an export line: the original's fields, plus supersedes and superseded_by when set. */
export function ledgerLineText(c: LedgerLine): string {
  const o: Record<string, unknown> = { id: c.id, text: c.text, status: c.status };
  if (c.key !== null) o.key = c.key;
  if (c.value !== null && c.value !== undefined) o.value = c.value;
  if (c.reason !== null) o.reason = c.reason;
  if (c.demoted_by !== null) o.demoted_by = c.demoted_by;
  if (c.watch !== null) o.watch = c.watch;
  if (c.supersedes.length > 0) o.supersedes = c.supersedes;
  if (c.superseded_by !== null) o.superseded_by = c.superseded_by;
  return JSON.stringify(o);
}
