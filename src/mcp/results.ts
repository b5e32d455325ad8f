// Reading an upstream's answer for the guard, and shaping what the agent receives: labelled results and tool errors.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { ToolDeclaration } from "../guard/declaration.js";
import { QUANTITY_KEYS as QUANTITY_OBJECT_KEYS } from "../quantity/quantity.js";

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** The keys of a quantity object; anything else an upstream puts beside them is kept, unlabelled. */
const QUANTITY_KEYS: ReadonlySet<string> = new Set(QUANTITY_OBJECT_KEYS);

// A plain decimal or exponent number and nothing else: "1250", "-0.5", "1.25e3" (not "nan", "0x10", "1,250").
const PLAIN_NUMBER = /^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$/;

const isNameList = (v: unknown) => Array.isArray(v) && v.every((x) => typeof x === "string");

/** What the guard is asked to label (`value`), and the keys of an upstream object kept beside the label (`extra`). */
export type ReadResult = { value: unknown; extra: Json };

/** A tool error, which the model reads as text. */
export function toolError(text: string): CallToolResult {
  return { content: [{ type: "text", text }], isError: true };
}

/** A tool error as the reply to a tools/call. */
export const toolErrorReply = (text: string): { result: CallToolResult } => ({ result: toolError(text) });

/**
 * Reads an upstream result for labelling, from its first text block (or its structuredContent when it has
 * no text): a JSON number; a JSON object with a numeric `value` (its `unit`, when stated, is kept so the
 * guard converts rather than relabels); a JSON array (a series); a plain number as text; any other text as
 * a quantity string such as "1250 cfs". For a declared mapping of result keys, the JSON object as it is.
 */
export function readResult(result: CallToolResult, returns: NonNullable<ToolDeclaration["returns"]>): ReadResult {
  const text = result.content.find((c) => c.type === "text");
  if (text?.type !== "text") return { value: result.structuredContent ?? null, extra: {} };
  const raw = text.text.trim();
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return { value: PLAIN_NUMBER.test(raw) ? Number(raw) : raw, extra: {} };
  }
  if (returns.kind === "mapping" || !isObject(parsed) || !("value" in parsed)) return { value: parsed, extra: {} };
  const value: Json = {};
  const extra: Json = {};
  // An upstream's own `flags` that is not a list of names (a bitmask, say) stays beside the label, not refused.
  for (const [k, v] of Object.entries(parsed))
    (QUANTITY_KEYS.has(k) && (k !== "flags" || isNameList(v)) ? value : extra)[k] = v;
  return { value, extra };
}

/** The upstream's result with the labelled value as `structuredContent` and one text block holding the same JSON. */
export function labelledResult(result: CallToolResult, labelled: unknown, extra: Json): CallToolResult {
  const structured: Json = isObject(labelled) ? { ...labelled, ...extra } : { value: labelled, ...extra };
  const { structuredContent: _upstream, content: _content, ...rest } = result;
  return { ...rest, content: [{ type: "text", text: JSON.stringify(structured) }], structuredContent: structured };
}

/** The first text of a result, shortened for a message. */
export function resultSnippet(result: CallToolResult, max = 200): string {
  const text = result.content.find((c) => c.type === "text");
  const s = text && text.type === "text" ? text.text : JSON.stringify(result.structuredContent ?? null);
  return s.length > max ? `${s.slice(0, max)}...` : s;
}

/** The ledger checked a call against a declaration other than the annotation (the tool name was re-declared elsewhere). */
export class DeclarationDrift extends Error {
  readonly code = "declaration_drift";
  constructor(message: string) {
    super(message);
    this.name = "DeclarationDrift";
  }
}

/**
 * The bare values the upstream receives: each checked argument as its magnitude in the declared unit
 * (a series as a JSON array, gaps as null), a timestamp as its ISO string in the declared zone; every
 * other argument exactly as the agent sent it.
 */
export function forwardedArgs(args: Json, checked: Json, tool: ToolDeclaration): Json {
  const out: Json = { ...args };
  for (const [param, decl] of Object.entries(tool.params)) {
    if (decl.kind === "opaque" || !(param in checked)) continue;
    const v = checked[param];
    if (!isObject(v) || !("value" in v))
      throw new DeclarationDrift(`the ledger answered ${param} without a value (${JSON.stringify(v)})`);
    // Another client may have re-declared this tool name in the same team; never forward a magnitude in a unit the upstream does not expect.
    const got = decl.kind === "physical" ? v.unit : v.tz;
    const want = decl.kind === "physical" ? decl.unit : decl.tz;
    if (got !== want)
      throw new DeclarationDrift(
        `the ledger checked ${param} as ${String(got)}, but the annotation declares ${String(want)}`,
      );
    out[param] = v.value;
  }
  return out;
}
