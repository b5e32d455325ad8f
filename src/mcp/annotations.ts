// The proxy's annotation file: which upstream tools carry physical meaning, read from TOML or JSON and validated when loaded.
import { readFileSync } from "node:fs";
import { parse as parseToml } from "smol-toml";
import {
  compileTool,
  DeclarationError,
  DeclarationSchema,
  type ToolDeclaration,
  type ToolDeclarationInput,
} from "../guard/declaration.js";
import { DatumRegistry } from "../quantity/datums.js";

/** One tool's annotation: the declaration as written (`input`) and compiled (`compiled`). */
export type ToolAnnotation = { name: string; input: ToolDeclarationInput; compiled: ToolDeclaration };

/** Every annotated tool, by name. */
export type Annotations = ReadonlyMap<string, ToolAnnotation>;

/** One problem in an annotation file: where (`tools.runoff_depth.params.discharge.unit`) and what. */
export type AnnotationIssue = { path: string; message: string };

/** An annotation file that cannot be used; the message names the file and every field at fault. */
export class AnnotationError extends Error {
  readonly code = "invalid_annotations";
  constructor(
    readonly source: string,
    readonly details: AnnotationIssue[],
  ) {
    super(`${source}: ${details.map((d) => (d.path ? `${d.path}: ${d.message}` : d.message)).join("; ")}`);
    this.name = "AnnotationError";
  }
}

/** The keys a tool's annotation may hold. */
const TOOL_KEYS = ["params", "returns"] as const;

/** The fields a declaration may hold. */
const DECLARATION_FIELDS = Object.keys(DeclarationSchema.shape);

const isTable = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof Date);
const listKeys = (keys: string[]) => `[${keys.map((k) => `'${k}'`).join(", ")}]`;

/** Reads and validates an annotation file: JSON when its name ends in `.json`, TOML otherwise. */
export function loadAnnotations(file: string, datums: DatumRegistry = new DatumRegistry()): Annotations {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    throw new AnnotationError(file, [
      { path: "", message: `cannot read the annotation file: ${(e as Error).message}` },
    ]);
  }
  return parseAnnotations(text, file.toLowerCase().endsWith(".json") ? "json" : "toml", file, datums);
}

/**
 * Parses annotation text. The top level holds a `tools` table or is the tools table; each tool takes
 * `params` (parameter → declaration) and `returns` (a declaration, or a table of result keys); a
 * declaration is a table of the declaration fields or a plain unit string. Every declaration is compiled
 * against `datums` (the builtin registry by default), so an unknown unit or datum fails here, naming it.
 * @example parseAnnotations('[tools.read_discharge]\nreturns = { unit = "cfs" }', "toml")
 */
export function parseAnnotations(
  text: string,
  format: "toml" | "json",
  source = "annotations",
  datums: DatumRegistry = new DatumRegistry(),
): Annotations {
  let doc: unknown;
  try {
    doc = format === "json" ? JSON.parse(text) : parseToml(text);
  } catch (e) {
    throw new AnnotationError(source, [
      { path: "", message: `not valid ${format.toUpperCase()}: ${(e as Error).message.split("\n")[0]}` },
    ]);
  }
  const issues: AnnotationIssue[] = [];
  const tools = toolsTable(doc, issues);
  const out = new Map<string, ToolAnnotation>();
  for (const [name, entry] of Object.entries(tools)) {
    const input = toolInput(name, entry, issues);
    if (!input) continue;
    try {
      out.set(name, { name, input, compiled: compileTool(name, input, { datums }) });
    } catch (e) {
      if (!(e instanceof DeclarationError)) throw e;
      for (const d of e.details)
        issues.push({ path: d.path === "name" ? `tools.${name}` : `tools.${name}.${d.path}`, message: d.message });
    }
  }
  if (issues.length) throw new AnnotationError(source, issues);
  return out;
}

function toolsTable(doc: unknown, issues: AnnotationIssue[]): Record<string, unknown> {
  if (!isTable(doc)) {
    issues.push({ path: "", message: "the file must hold a table of tools, such as [tools.read_discharge]" });
    return {};
  }
  if (!("tools" in doc)) return doc;
  const extra = Object.keys(doc).filter((k) => k !== "tools");
  if (extra.length)
    issues.push({
      path: "",
      message: `unknown top-level keys ${listKeys(extra)}; the file holds only a [tools] table`,
    });
  if (!isTable(doc.tools)) {
    issues.push({ path: "tools", message: "must be a table of tools, such as [tools.read_discharge]" });
    return {};
  }
  return doc.tools;
}

function toolInput(name: string, entry: unknown, issues: AnnotationIssue[]): ToolDeclarationInput | null {
  const at = `tools.${name}`;
  if (!isTable(entry)) {
    issues.push({ path: at, message: "must be a table with params and/or returns" });
    return null;
  }
  const unknown = Object.keys(entry).filter((k) => !(TOOL_KEYS as readonly string[]).includes(k));
  if (unknown.length) {
    issues.push({
      path: at,
      message: `unknown annotation keys ${listKeys(unknown)}; a tool takes only params and returns`,
    });
    return null;
  }
  const params = entry.params ?? {};
  if (!isTable(params)) {
    issues.push({
      path: `${at}.params`,
      message: 'must be a table of parameter declarations, such as discharge = { unit = "m**3/s" }',
    });
    return null;
  }
  const before = issues.length;
  for (const [p, d] of Object.entries(params)) checkFields(d, `${at}.params.${p}`, issues);
  const returns = entry.returns;
  if (isTable(returns)) {
    // `{unit = "cfs", dautm = "NAVD88"}` is a misspelt declaration, not a mapping of result keys `unit` and `dautm`.
    if (Object.keys(returns).some((k) => DECLARATION_FIELDS.includes(k))) checkFields(returns, `${at}.returns`, issues);
    else for (const [k, d] of Object.entries(returns)) checkFields(d, `${at}.returns.${k}`, issues);
  }
  if (issues.length > before) return null;
  // compileTool checks each declaration's values and names the field at fault; here only the structure is ours.
  const input = { params } as ToolDeclarationInput;
  if (returns !== undefined && !(isTable(returns) && Object.keys(returns).length === 0))
    input.returns = returns as ToolDeclarationInput["returns"];
  return input;
}

function checkFields(decl: unknown, path: string, issues: AnnotationIssue[]): void {
  if (!isTable(decl)) return;
  const unknown = Object.keys(decl).filter((k) => !DECLARATION_FIELDS.includes(k));
  if (unknown.length)
    issues.push({
      path,
      message: `unknown declaration keys ${listKeys(unknown)}; a declaration takes ${DECLARATION_FIELDS.join(", ")}`,
    });
}
