// Vertical datums: the 22 pre-registered names, a team's own, and offsets registered explicitly, never chained.
import { DatumConversionUnavailable, DatumMismatch } from "./errors.js";

/** A vertical datum. */
export type Datum = { name: string; kind: string; description: string; builtin: boolean };

/** An offset between two datums: value_on_to = value_on_from + offsetM. */
export type DatumOffset = { from: string; to: string; offsetM: number; source?: string | null };

/** The 22 vertical datums every team starts with. No offset between them is assumed. */
export const BUILTIN_DATUMS: readonly Omit<Datum, "builtin" | "kind">[] = [
  { name: "NAVD88", description: "North American Vertical Datum of 1988" },
  { name: "NGVD29", description: "National Geodetic Vertical Datum of 1929" },
  { name: "CGVD2013", description: "Canadian Geodetic Vertical Datum of 2013" },
  { name: "CGVD28", description: "Canadian Geodetic Vertical Datum of 1928" },
  { name: "ODN", description: "Ordnance Datum Newlyn, mainland Great Britain" },
  { name: "BELFAST", description: "Belfast Ordnance Datum, Northern Ireland" },
  { name: "MALIN", description: "Malin Head datum, Ireland" },
  { name: "NAP", description: "Normaal Amsterdams Peil, Netherlands" },
  { name: "EVRF2019", description: "European Vertical Reference Frame 2019" },
  { name: "EVRF2000", description: "European Vertical Reference Frame 2000" },
  { name: "DHHN2016", description: "Deutsches Haupthoehennetz 2016, Germany" },
  { name: "NGF-IGN69", description: "Nivellement General de la France, IGN69" },
  { name: "AHD", description: "Australian Height Datum" },
  { name: "NZVD2016", description: "New Zealand Vertical Datum 2016" },
  { name: "EGM2008", description: "Earth Gravitational Model 2008 geoid" },
  { name: "EGM96", description: "Earth Gravitational Model 1996 geoid" },
  { name: "MSL", description: "Mean sea level, station-dependent" },
  { name: "MLLW", description: "Mean lower low water" },
  { name: "MHHW", description: "Mean higher high water" },
  { name: "LAT", description: "Lowest astronomical tide, the usual chart datum in Europe" },
  { name: "CD", description: "Chart datum, port-specific" },
  { name: "GAGE", description: "Local gage or gauge datum, station-specific offset required" },
];

const key = (from: string, to: string) => `${from}\u0000${to}`;

/** A team's view of the datum registry: builtins plus its own names and offsets. Immutable once built. */
export class DatumRegistry {
  private readonly datums = new Map<string, Datum>();
  private readonly offsets = new Map<string, DatumOffset>();

  constructor(
    extra: readonly { name: string; kind?: string; description?: string }[] = [],
    offsets: readonly DatumOffset[] = [],
  ) {
    for (const d of BUILTIN_DATUMS) this.datums.set(d.name, { ...d, kind: "vertical", builtin: true });
    for (const d of extra)
      this.datums.set(d.name, {
        name: d.name,
        kind: d.kind ?? "vertical",
        description: d.description ?? "",
        builtin: false,
      });
    for (const o of offsets) this.addOffset(o);
  }

  /** A new registry with more datums and offsets (a later offset for the same pair replaces the earlier). */
  with(extra: readonly { name: string; description?: string }[], offsets: readonly DatumOffset[] = []): DatumRegistry {
    const own = [...this.datums.values()].filter((d) => !d.builtin);
    return new DatumRegistry([...own, ...extra], [...this.listOffsets(), ...offsets]);
  }

  private addOffset(o: DatumOffset): void {
    this.get(o.from);
    this.get(o.to);
    this.offsets.set(key(o.from, o.to), o);
    this.offsets.set(key(o.to, o.from), { from: o.to, to: o.from, offsetM: -o.offsetM, source: o.source ?? null });
  }

  /** True when the name is registered. */
  has(name: string): boolean {
    return this.datums.has(name);
  }

  /** The datum, or DatumMismatch naming the known ones. */
  get(name: string): Datum {
    const d = this.datums.get(name);
    if (!d) {
      throw new DatumMismatch(
        `unknown datum '${name}'; register it first (POST /v1/datums) or use one of [${this.names().join(", ")}]`,
        { context: { datum: name } },
      );
    }
    return d;
  }

  /** Every registered name, sorted. */
  names(): string[] {
    return [...this.datums.keys()].sort();
  }

  /** Every datum, builtins first. */
  list(): Datum[] {
    return [...this.datums.values()];
  }

  /** Every registered offset, one direction each (as registered). */
  listOffsets(): DatumOffset[] {
    const seen = new Set<string>();
    const out: DatumOffset[] = [];
    for (const o of this.offsets.values()) {
      const pair = [o.from, o.to].sort().join("\u0000");
      if (seen.has(pair)) continue;
      seen.add(pair);
      out.push(o);
    }
    return out;
  }

  /** Offset in metres from `from` to `to`: 0 for the same datum, the direct registered offset, else refused. */
  offsetMetres(from: string, to: string): number {
    if (from === to) return 0;
    this.get(from);
    this.get(to);
    const o = this.offsets.get(key(from, to));
    if (!o) {
      throw new DatumConversionUnavailable(
        `no registered offset from '${from}' to '${to}'. This conversion depends on location and will not be guessed: ` +
          `obtain the local offset (VERTCON for NAVD88 and NGVD29, the published station datum for a gage) and register it ` +
          `with POST /v1/datums/offsets {"from": "${from}", "to": "${to}", "offset": {"value": ..., "unit": "m"}}`,
        { context: { from_datum: from, to_datum: to } },
      );
    }
    return o.offsetM;
  }

  /** True for the same datum or a direct registered offset; never transitive. */
  canConvert(from: string, to: string): boolean {
    return from === to || this.offsets.has(key(from, to));
  }
}
