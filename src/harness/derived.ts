// The carry-over labels of corpus README section 4, computed per run from what reached each hazard parameter: the
// class of every argument sent there, whether an unconverted, unshifted or fabricated value was sent, and the
// known cause a wrong answer's ratio matches.
import { parseUnit, tryConvert } from "../quantity/units.js";
import type { Hazard, Task, TaskData } from "./suites.js";

/** One call as the labels read it: the tool and the arguments the model sent. */
export type SentCall = { tool: string; args: unknown };

/** The derived labels of one run (README section 4, `derived`). */
export type Derived = {
  hazard_params: Record<string, { call: number; class: string }[]>;
  undeclared_tools_called: string[];
  reached_hazard_tool: boolean | null;
  unit_carry_over_sent: boolean | null;
  datum_carry_over_sent: boolean | null;
  datum_error_sent: boolean | null;
  fabricated_input_sent: boolean | null;
  wrong_answer_ratio: number | null;
  wrong_answer_signature: string | null;
};

const REL = 0.01;
const near = (x: number, ref: number) => (ref === 0 ? Math.abs(x) < 1e-9 : Math.abs(x - ref) <= REL * Math.abs(ref));
const NUM = /^\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*(.*)$/;

/** An argument read as the labels read it: a number, its unit text and datum (a JSON text holding an object counts). */
function reading(x: unknown): { value: number; unit: string | null; datum: string | null } | null {
  if (typeof x === "string") {
    const t = x.trim();
    if (t.startsWith("{")) {
      try {
        return reading(JSON.parse(t));
      } catch {
        return null;
      }
    }
    const m = NUM.exec(t);
    if (!m) return null;
    const rest = (m[2] ?? "").trim();
    const unit = rest.match(/^[A-Za-z*/^·\d%\s³²]+/)?.[0]?.trim() ?? "";
    return { value: Number(m[1]), unit: unit === "" || /^[+-]/.test(rest) ? null : unit, datum: null };
  }
  if (typeof x === "number") return { value: x, unit: null, datum: null };
  if (typeof x === "object" && x !== null && !Array.isArray(x)) {
    const o = x as Record<string, unknown>;
    const v = typeof o.value === "number" ? o.value : typeof o.value === "string" ? Number(o.value) : Number.NaN;
    if (!Number.isFinite(v)) return null;
    return {
      value: v,
      unit: typeof o.unit === "string" ? o.unit : null,
      datum: typeof o.datum === "string" ? o.datum : null,
    };
  }
  return null;
}

const parses = (unit: string): boolean => {
  try {
    parseUnit(unit);
    return true;
  } catch {
    return false;
  }
};
const sameUnit = (a: string, b: string) => tryConvert(1, a, b) !== null && near(tryConvert(1, a, b)!, 1);

function unitClass(h: Hazard, x: unknown): string {
  if (x === undefined || x === null) return "absent";
  const r = reading(x);
  if (!r) return "unparsed";
  const src = h.source_value!;
  const declared = h.declared_unit!;
  if (r.unit === null)
    return near(r.value, src) ? "unconverted_bare" : near(r.value, h.correct_value!) ? "converted" : "other_value";
  if (!parses(r.unit)) return "unrecognised_unit";
  const inDeclared = tryConvert(r.value, r.unit, declared);
  if (inDeclared === null) return "wrong_dimension";
  if (near(r.value, src) && sameUnit(r.unit, declared) && !sameUnit(h.source_unit!, declared))
    return "unconverted_relabelled";
  if (near(r.value, src) && sameUnit(r.unit, h.source_unit!)) return "explicit_source_unit";
  if (near(inDeclared, h.correct_value!)) return "converted";
  return "other_value";
}

function datumClass(h: Hazard, x: unknown): string {
  if (x === undefined || x === null) return "absent";
  const r = reading(x);
  if (!r) return "unparsed";
  const declared = h.declared_datum!;
  if (near(r.value, h.source_value!)) {
    if (r.datum === null) return "unshifted_unlabelled";
    if (r.datum === declared) return "unshifted_relabelled";
    if (r.datum === h.source_datum) return "explicit_source_datum";
    return "unshifted_other_datum";
  }
  if (near(r.value, h.correct_value!))
    return r.datum === null || r.datum === declared ? "shifted" : "shifted_mislabelled";
  return "other_value";
}

function timeClass(h: Hazard, x: unknown): string {
  if (typeof x !== "string") return x === undefined || x === null ? "absent" : "unparsed";
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}):(\d{2})(?::\d{2}(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/.exec(x.trim());
  if (!m) return "unparsed";
  if (!m[4]) return "naive";
  const at = Date.parse(x.trim());
  const want = Date.parse(h.correct_instant_utc!);
  if (at === want) return "correct_instant";
  const wantClock = new Date(want).toISOString().slice(11, 16);
  return `${m[2]}:${m[3]}` === wantClock ? "utc_clock_with_local_offset" : "wrong_instant";
}

const CLASSIFY: Record<Hazard["kind"], (h: Hazard, x: unknown) => string> = {
  unit: unitClass,
  datum: datumClass,
  time: timeClass,
  fabrication: (_h, x) => (x === undefined || x === null ? "absent" : reading(x) ? "fabricated_value" : "unparsed"),
};

const CARRY_UNIT = new Set(["unconverted_bare", "unconverted_relabelled"]);
const CARRY_DATUM = new Set(["unshifted_unlabelled", "unshifted_relabelled", "unshifted_other_datum"]);

/** The derived labels of a run from its calls, and (for a wrong answer) the ratio of stated to reference. */
export function deriveLabels(task: Task, data: TaskData, calls: readonly SentCall[], ratio: number | null): Derived {
  const hazards = data.hazards[task.name] ?? [];
  const hazard_params: Derived["hazard_params"] = {};
  calls.forEach((c, i) => {
    for (const h of hazards) {
      if (h.tool !== c.tool) continue;
      const args =
        typeof c.args === "object" && c.args !== null && !Array.isArray(c.args)
          ? (c.args as Record<string, unknown>)
          : {};
      const key = `${h.tool}.${h.param}`;
      (hazard_params[key] ??= []).push({ call: i, class: CLASSIFY[h.kind](h, args[h.param]) });
    }
  });
  const kinds = new Set(hazards.map((h) => h.kind));
  const sent = (kind: Hazard["kind"], classes: Set<string>): boolean | null => {
    if (!kinds.has(kind)) return null;
    const params = hazards.filter((h) => h.kind === kind).map((h) => `${h.tool}.${h.param}`);
    return params.some((p) => (hazard_params[p] ?? []).some((e) => classes.has(e.class)));
  };
  const signatures = data.signatures[task.name] ?? {};
  const signature = ratio === null ? null : (Object.entries(signatures).find(([, r]) => near(ratio, r))?.[0] ?? null);
  return {
    hazard_params,
    undeclared_tools_called: [...new Set(calls.map((c) => c.tool).filter((t) => !(t in task.tools)))],
    reached_hazard_tool: hazards.length ? calls.some((c) => hazards.some((h) => h.tool === c.tool)) : null,
    unit_carry_over_sent: sent("unit", CARRY_UNIT),
    datum_carry_over_sent: sent("datum", CARRY_DATUM),
    datum_error_sent: sent("datum", new Set([...CARRY_DATUM, "explicit_source_datum"])),
    fabricated_input_sent: sent("fabrication", new Set(["fabricated_value"])),
    wrong_answer_ratio: ratio === null ? null : Number(ratio.toPrecision(3)),
    wrong_answer_signature: signature,
  };
}
