// Gate thresholds: the defaults as data, the layout as a zod schema, TOML parsing and merging of partial settings.
import { parse as parseToml, TomlError } from "smol-toml";
import { z } from "zod";
import { GRADES } from "../quantity/quality.js";
import { CRITIC_NAMES } from "./critics.js";
import { GATE_NAMES, type GateName } from "./outcome-kit.js";

const share = z.number().min(0).max(1);
const count = z.number().int().min(0);
const weight = z.number().min(0);

const weightShape = Object.fromEntries(GATE_NAMES.map((g) => [g, weight])) as Record<GateName, typeof weight>;

/** Every section and key of thresholds.toml, with its type and range. */
const SECTIONS = {
  global: {
    conjunctive: z.boolean(),
    min_score: z.number().min(0).max(100),
    warning_penalty: z.number().min(0),
    claim_ledger: z.string(),
  },
  weights: weightShape,
  // "" keeps a reading below approved a warning; a grade makes a reading that does not meet it an error.
  evidence: { min_confidence: share, check_paths: z.boolean(), min_quality: z.enum(["", ...GRADES]) },
  provenance: { max_recalled_share: share },
  baseline: { require_naive: z.boolean() },
  statistics: { min_sample_size: count, min_tests: count },
  simplicity: { max_exposed_controls: count, max_required_decisions: count, max_configuration_steps: count },
  explainability: { min_rationale_words: count },
  stability: { require_repeats: z.boolean() },
  adversarial: { critics: z.array(z.enum(CRITIC_NAMES)) },
} as const;

type SectionName = keyof typeof SECTIONS;
const SECTION_NAMES = Object.keys(SECTIONS) as SectionName[];

/** The complete settings object. */
export const SettingsSchema = z.strictObject(
  Object.fromEntries(SECTION_NAMES.map((s) => [s, z.strictObject(SECTIONS[s])])) as {
    [S in SectionName]: z.ZodObject<(typeof SECTIONS)[S], z.core.$strict>;
  },
);

export type Settings = z.infer<typeof SettingsSchema>;
/** Settings with every section and key optional. */
export type PartialSettings = { [S in keyof Settings]?: Partial<Settings[S]> };

/** A partial settings object, as in a thresholds.toml or an evaluation request: every key optional, none unknown. */
export const PartialSettingsSchema: z.ZodType<PartialSettings> = z.strictObject(
  Object.fromEntries(SECTION_NAMES.map((s) => [s, z.strictObject(SECTIONS[s]).partial().optional()])),
) as unknown as z.ZodType<PartialSettings>;

/** The shipped defaults (the spec's thresholds.toml); thresholds.default.toml holds the same values with comments. */
export const DEFAULT_SETTINGS: Settings = {
  global: { conjunctive: true, min_score: 80, warning_penalty: 5, claim_ledger: "" },
  weights: Object.fromEntries(GATE_NAMES.map((g) => [g, 1])) as Record<GateName, number>,
  evidence: { min_confidence: 0, check_paths: false, min_quality: "" },
  provenance: { max_recalled_share: 0.5 },
  baseline: { require_naive: true },
  statistics: { min_sample_size: 1, min_tests: 2 },
  simplicity: { max_exposed_controls: 7, max_required_decisions: 5, max_configuration_steps: 3 },
  explainability: { min_rationale_words: 3 },
  stability: { require_repeats: false },
  adversarial: { critics: [...CRITIC_NAMES] },
};

/** Thrown when a settings file or object cannot be used; the message names every offending key. */
export class SettingsError extends Error {
  readonly code = "invalid_settings";
  readonly issues: { key: string; message: string }[];
  constructor(issues: { key: string; message: string }[], cause?: unknown) {
    super(
      issues.map((i) => (i.key ? `${i.key}: ${i.message}` : i.message)).join("; "),
      cause === undefined ? undefined : { cause },
    );
    this.name = "SettingsError";
    this.issues = issues;
  }
}

function toIssues(error: z.ZodError): { key: string; message: string }[] {
  return error.issues.flatMap((i) => {
    const at = i.path.map(String);
    if (i.code === "unrecognized_keys") {
      return i.keys.map((k) => ({
        key: [...at, k].join("."),
        message: `unknown setting \`${[...at, k].join(".")}\`; known ${at.length ? `keys of [${at.join(".")}]` : "sections"} are ${knownKeys(at).join(", ")}`,
      }));
    }
    return [{ key: at.join("."), message: `${i.message}` }];
  });
}

function knownKeys(at: string[]): string[] {
  const section = at[0] as SectionName | undefined;
  return section && section in SECTIONS ? Object.keys(SECTIONS[section]) : SECTION_NAMES;
}

/** Reads thresholds.toml text into partial settings; throws SettingsError on bad TOML or an unknown or mistyped key. */
export function parseThresholdsToml(text: string): PartialSettings {
  let raw: unknown;
  try {
    raw = parseToml(text);
  } catch (e) {
    const where = e instanceof TomlError ? ` at line ${e.line}, column ${e.column}` : "";
    throw new SettingsError(
      [
        {
          key: "",
          message: `thresholds.toml is not valid TOML${where}: ${e instanceof Error ? e.message.split("\n")[0] : String(e)}`,
        },
      ],
      e,
    );
  }
  return validatePartial(raw);
}

/** Checks a partial settings object (from TOML or a request's `settings`); throws SettingsError naming each bad key. */
export function validatePartial(raw: unknown): PartialSettings {
  const parsed = PartialSettingsSchema.safeParse(raw);
  if (!parsed.success) throw new SettingsError(toIssues(parsed.error));
  return parsed.data;
}

/** Deep-merges partial settings over a base; both are validated and unknown keys are an error naming the key. */
export function mergeSettings(base: Settings, partial: unknown): Settings {
  const over = validatePartial(partial ?? {});
  const merged: Record<string, unknown> = {};
  for (const s of SECTION_NAMES) merged[s] = { ...base[s], ...stripUndefined(over[s] ?? {}) };
  const full = SettingsSchema.safeParse(merged);
  if (!full.success) throw new SettingsError(toIssues(full.error));
  return full.data;
}

function stripUndefined(o: object): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}
