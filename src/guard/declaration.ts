// Tool declarations: what each parameter and return means physically, validated when the tool is declared.
import { z } from "zod";
import type { DatumRegistry } from "../quantity/datums.js";
import { type Grade, type QualityTable, DEFAULT_QUALITY } from "../quantity/quality.js";
import { isValidZone } from "../quantity/time.js";
import { parseUnit } from "../quantity/units.js";

/** One parameter's or return's declaration, as sent. */
export const DeclarationSchema = z
  .object({
    unit: z.string().min(1).max(200).optional(),
    datum: z.string().min(1).max(128).optional(),
    tz: z.string().min(1).max(64).optional(),
    quality: z.string().min(1).max(64).optional(),
    crs: z.string().min(1).max(128).optional(),
    sourced: z.boolean().optional(),
    require_explicit_unit: z.boolean().optional(),
    required: z.boolean().optional(),
    description: z.string().max(4000).optional(),
  })
  .strict();

/** A declaration as sent; a plain string is shorthand for `{unit}`. */
export type DeclarationInput = z.infer<typeof DeclarationSchema>;

const DECLARATION_KEYS = new Set(Object.keys(DeclarationSchema.shape));

/** Tool names match `[A-Za-z0-9_.:-]{1,128}` (API.md). */
export const TOOL_NAME = /^[A-Za-z0-9_.:-]{1,128}$/;
const PARAM_NAME = /^[A-Za-z_][A-Za-z0-9_.-]{0,127}$/;
// Names that JavaScript objects already carry: a parameter so named would be dropped or shadowed silently.
const RESERVED = new Set(["__proto__", "constructor", "prototype"]);

/** A tool declaration as sent to `PUT /v1/tools/{name}`. */
export const ToolDeclarationSchema = z
  .object({
    description: z.string().max(8000).optional(),
    params: z.record(
      z
        .string()
        .regex(PARAM_NAME, "parameter names are letters, digits, _ . and -")
        .refine((n) => !RESERVED.has(n), "this name is reserved by JavaScript objects; choose another"),
      z.union([z.string().min(1).max(200), DeclarationSchema]),
    ),
    returns: z
      .union([
        z.string().min(1).max(200),
        DeclarationSchema,
        z.record(z.string().min(1).max(128), z.union([z.string().min(1).max(200), DeclarationSchema])),
      ])
      .optional(),
  })
  .strict();

/** The tool declaration as sent. */
export type ToolDeclarationInput = z.infer<typeof ToolDeclarationSchema>;

/** A declaration after validation: the unit canonical, the quality floor a grade, the kind decided. */
export type Declaration = {
  kind: "physical" | "temporal" | "opaque";
  unit: string | null;
  datum: string | null;
  tz: string | null;
  quality: Grade | null;
  /** The floor as the tool's author wrote it, quoted in messages. */
  qualityText: string | null;
  crs: string | null;
  sourced: boolean;
  requireExplicitUnit: boolean;
  required: boolean;
  description: string;
};

/** A validated tool declaration. `returns` is one declaration, a mapping of result keys, or none. */
export type ToolDeclaration = {
  name: string;
  version: number;
  description: string;
  params: Record<string, Declaration>;
  returns: { kind: "single"; decl: Declaration } | { kind: "mapping"; keys: Record<string, Declaration> } | null;
};

/** A declaration refused when declared; `details` names each field at fault. */
export class DeclarationError extends Error {
  readonly code = "invalid_request";
  readonly status = 400;
  constructor(readonly details: { path: string; message: string }[]) {
    super(`the declaration is invalid: ${details.map((d) => `${d.path}: ${d.message}`).join("; ")}`);
    this.name = "DeclarationError";
  }
}

type Ctx = { datums: DatumRegistry; quality?: QualityTable };

/** Validates a declaration against the unit registry, the team's datums, zones and quality codes. */
export function compileTool(name: string, input: ToolDeclarationInput, ctx: Ctx, version = 1): ToolDeclaration {
  const issues: { path: string; message: string }[] = [];
  if (!TOOL_NAME.test(name))
    issues.push({ path: "name", message: `tool names match [A-Za-z0-9_.:-]{1,128}, received '${name}'` });
  const params: Record<string, Declaration> = {};
  for (const [p, d] of Object.entries(input.params)) params[p] = compileDeclaration(d, `params.${p}`, ctx, issues);
  let returns: ToolDeclaration["returns"] = null;
  if (input.returns !== undefined) {
    if (isMapping(input.returns)) {
      const keys: Record<string, Declaration> = {};
      for (const [k, d] of Object.entries(input.returns))
        keys[k] = compileDeclaration(d as DeclarationInput | string, `returns.${k}`, ctx, issues);
      returns = { kind: "mapping", keys };
    } else {
      returns = {
        kind: "single",
        decl: compileDeclaration(input.returns as DeclarationInput | string, "returns", ctx, issues),
      };
    }
  }
  if (issues.length) throw new DeclarationError(issues);
  return { name, version, description: input.description ?? "", params, returns };
}

/** A returns object is a mapping when not every key is a declaration field (`{stage: {...}}` vs `{unit: "ft"}`). */
function isMapping(r: unknown): boolean {
  return typeof r === "object" && r !== null && !Object.keys(r).every((k) => DECLARATION_KEYS.has(k));
}

function compileDeclaration(
  input: DeclarationInput | string,
  path: string,
  ctx: Ctx,
  issues: { path: string; message: string }[],
): Declaration {
  const parsed = typeof input === "string" ? { unit: input } : DeclarationSchema.safeParse(input);
  let d: DeclarationInput;
  if ("success" in parsed) {
    if (!parsed.success) {
      for (const i of parsed.error.issues)
        issues.push({ path: [path, ...i.path.map(String)].join("."), message: i.message });
      d = {};
    } else d = parsed.data;
  } else d = parsed;
  const out: Declaration = {
    kind: d.unit ? "physical" : d.tz ? "temporal" : "opaque",
    unit: null,
    datum: d.datum ?? null,
    tz: null,
    quality: null,
    qualityText: d.quality ?? null,
    crs: d.crs ?? null,
    sourced: d.sourced ?? false,
    requireExplicitUnit: d.require_explicit_unit ?? false,
    required: d.required ?? true,
    description: d.description ?? "",
  };
  if (d.unit && d.tz) {
    issues.push({
      path,
      message:
        "a declaration gives either a physical quantity (unit) or a timestamp (tz), not both; a timestamped quantity is two parameters",
    });
  }
  if (d.unit) {
    try {
      out.unit = parseUnit(d.unit).canonical;
    } catch (e) {
      issues.push({ path: `${path}.unit`, message: `unknown unit '${d.unit}': ${(e as Error).message}` });
    }
  } else if (d.datum || d.crs || d.quality || d.sourced || d.require_explicit_unit) {
    // The reference silently validated nothing here; a declaration that cannot be enforced is refused instead.
    issues.push({
      path,
      message:
        "datum, crs, quality, sourced and require_explicit_unit apply to a physical quantity, so this declaration also needs a unit",
    });
  }
  if (d.datum && !ctx.datums.has(d.datum))
    issues.push({
      path: `${path}.datum`,
      message: `unknown datum '${d.datum}'; register it first with POST /v1/datums`,
    });
  if (d.tz) {
    if (isValidZone(d.tz)) out.tz = d.tz.toUpperCase() === "UTC" ? "UTC" : d.tz;
    else
      issues.push({
        path: `${path}.tz`,
        message: `unknown timezone '${d.tz}'; use "UTC" or an IANA name such as "America/Chicago"`,
      });
  }
  if (d.quality) {
    try {
      out.quality = (ctx.quality ?? DEFAULT_QUALITY).normalise(d.quality);
    } catch (e) {
      issues.push({ path: `${path}.quality`, message: (e as Error).message });
    }
  }
  return out;
}

/** The declaration as the API shows it again (canonical unit, the quality floor as written). */
export function declarationToJSON(d: Declaration): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (d.unit) out.unit = d.unit;
  if (d.datum) out.datum = d.datum;
  if (d.tz) out.tz = d.tz;
  if (d.qualityText) out.quality = d.qualityText;
  if (d.crs) out.crs = d.crs;
  if (d.sourced) out.sourced = true;
  if (d.requireExplicitUnit) out.require_explicit_unit = true;
  if (!d.required) out.required = false;
  if (d.description) out.description = d.description;
  return out;
}
