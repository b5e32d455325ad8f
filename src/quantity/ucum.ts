// UCUM codes (the Unified Code for Units of Measure, case-sensitive form) for the units we accept, so that a
// re-advertised schema can carry `x-ogc-unit` as OGC 23-058r2 and the USGS Water Data APIs do. A unit with any
// factor that has no UCUM form gets no code at all: a missing code is honest, a near miss is not.
import { type UnitFactor, unitFactors } from "./units.js";

/** How one of our unit names is written in UCUM; `metric` atoms take SI prefixes, composite ones are terms. */
type Atom = { code: string; metric?: boolean; composite?: boolean };

const metric = (code: string): Atom => ({ code, metric: true });
const plain = (code: string): Atom => ({ code });
const term = (code: string): Atom => ({ code, composite: true });

/** Our unit names (mathjs's and the hydrology table's, with their plural and long spellings) to UCUM atoms. */
const ATOMS: Record<string, Atom> = {
  ...names(metric("m"), "m", "meter", "meters", "metre", "metres"),
  ...names(metric("g"), "g", "gram", "grams"),
  ...names(metric("s"), "s", "second", "seconds", "sec", "secs"),
  ...names(metric("L"), "L", "l", "liter", "liters", "litre", "litres"),
  ...names(metric("K"), "K", "kelvin"),
  ...names(metric("A"), "A", "ampere", "amperes"),
  ...names(metric("mol"), "mol", "mole", "moles"),
  ...names(metric("cd"), "cd", "candela"),
  ...names(metric("N"), "N", "newton", "newtons"),
  ...names(metric("Pa"), "Pa", "pascal", "pascals"),
  ...names(metric("J"), "J", "joule", "joules"),
  ...names(metric("W"), "W", "watt", "watts"),
  ...names(metric("V"), "V", "volt", "volts"),
  ...names(metric("C"), "C", "coulomb", "coulombs"),
  ...names(metric("Ohm"), "ohm", "ohms"),
  ...names(metric("S"), "S", "siemens"),
  ...names(metric("Hz"), "Hz", "hertz"),
  ...names(metric("bar"), "bar", "bars"),
  ...names(metric("rad"), "rad", "radian", "radians"),
  ...names(plain("deg"), "deg", "degree", "degrees"),
  ...names(plain("min"), "min", "minute", "minutes"),
  ...names(plain("h"), "h", "hr", "hour", "hours"),
  ...names(plain("d"), "d", "day", "days"),
  ...names(plain("wk"), "week", "weeks"),
  ...names(plain("mo"), "month", "months"),
  ...names(plain("a"), "year", "years"),
  ...names(plain("[in_i]"), "in", "inch", "inches"),
  ...names(plain("[ft_i]"), "ft", "foot", "feet"),
  ...names(plain("[yd_i]"), "yd", "yard", "yards"),
  ...names(plain("[mi_i]"), "mi", "mile", "miles"),
  ...names(plain("har"), "ha", "hectare", "hectares"),
  ...names(plain("[acr_us]"), "acre", "acres"),
  ...names(plain("[gal_us]"), "gal", "gallon", "gallons"),
  ...names(plain("[lb_av]"), "lb", "lbs", "lbm", "pound", "pounds"),
  ...names(plain("[oz_av]"), "oz", "ounce", "ounces"),
  ...names(plain("atm"), "atm"),
  ...names(plain("[psi]"), "psi"),
  ...names(plain("mm[Hg]"), "mmHg"),
  ...names(plain("Cel"), "degC", "celsius"),
  ...names(plain("[degF]"), "degF", "fahrenheit"),
  ...names(plain("%"), "percent"),
  ...names(plain("[pH]"), "pH"),
  cfs: term("[ft_i]3/s"),
  cusec: term("[ft_i]3/s"),
  cusecs: term("[ft_i]3/s"),
  cms: term("m3/s"),
  cumec: term("m3/s"),
  cumecs: term("m3/s"),
  mgd: term("10*6.[gal_us]/d"),
  MGD: term("10*6.[gal_us]/d"),
  impmgd: term("10*6.[gal_br]/d"),
  Mgal: term("10*6.[gal_us]"),
  gpm: term("[gal_us]/min"),
  sfd: term("[ft_i]3.d/s"),
  acreft: term("[acr_us].[ft_i]"),
  acrefoot: term("[acr_us].[ft_i]"),
  acrefeet: term("[acr_us].[ft_i]"),
  mph: term("[mi_i]/h"),
  Wh: term("W.h"),
};

/** SI prefixes as mathjs names them (short and long) to UCUM's symbols, which are the short SI symbols. */
const PREFIXES: Record<string, string> = {
  ...Object.fromEntries(
    ["Y", "Z", "E", "P", "T", "G", "M", "k", "h", "da", "d", "c", "m", "u", "n", "p", "f", "a", "z", "y"].map((p) => [
      p,
      p,
    ]),
  ),
  yotta: "Y",
  zetta: "Z",
  exa: "E",
  peta: "P",
  tera: "T",
  giga: "G",
  mega: "M",
  kilo: "k",
  hecto: "h",
  deca: "da",
  deci: "d",
  centi: "c",
  milli: "m",
  micro: "u",
  nano: "n",
  pico: "p",
  femto: "f",
  atto: "a",
  zepto: "z",
  yocto: "y",
};

function names(atom: Atom, ...spellings: string[]): Record<string, Atom> {
  return Object.fromEntries(spellings.map((s) => [s, atom]));
}

const cache = new Map<string, string | null>();

/** The UCUM code of a unit we accept (`cfs` is `[ft_i]3/s`, `km^2` is `km2`), or undefined when it has none. */
export function ucumCode(unit: string): string | undefined {
  const hit = cache.get(unit);
  if (hit !== undefined) return hit ?? undefined;
  let code: string | null = null;
  try {
    code = codeOf(unitFactors(unit));
  } catch {
    code = null;
  }
  if (cache.size > 10_000) cache.clear();
  cache.set(unit, code);
  return code ?? undefined;
}

function codeOf(factors: UnitFactor[]): string | null {
  if (factors.length === 0) return "1";
  const parts: { text: string; power: number }[] = [];
  for (const f of factors) {
    const atom = ATOMS[f.name];
    if (!atom) return null;
    const prefix = f.prefix === "" ? "" : atom.metric ? PREFIXES[f.prefix] : undefined;
    if (prefix === undefined) return null;
    if (atom.composite) {
      // A UCUM term in parentheses takes no exponent, so a composite atom is only written to the power one.
      if (Math.abs(f.power) !== 1) return null;
      const alone = factors.length === 1 && f.power === 1;
      parts.push({ text: alone ? atom.code : `(${atom.code})`, power: f.power });
    } else {
      parts.push({ text: prefix + atom.code, power: f.power });
    }
  }
  if (parts.some((p) => !Number.isInteger(p.power))) return null;
  const up = parts.filter((p) => p.power > 0);
  const down = parts.filter((p) => p.power < 0);
  const withPower = (p: { text: string; power: number }, power: number) => (power === 1 ? p.text : `${p.text}${power}`);
  // Each divisor follows a solidus, which UCUM reads left to right; with no numerator the term opens with one (`/s`).
  return up.map((p) => withPower(p, p.power)).join(".") + down.map((p) => `/${withPower(p, -p.power)}`).join("");
}
