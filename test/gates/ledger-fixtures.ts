// Builders for the evidence gate's ledger tests: stored crossings and an in-memory resolver over them.
import { evidenceGate } from "../../src/gates/evidence.js";
import type { SourceLink } from "../../src/gates/ledger-evidence.js";
import { memoryResolver, snapshotEvidence } from "../../src/gates/ledger-evidence.js";
import type { LedgerCrossing } from "../../src/gates/ports.js";
import type { PartialSettings } from "../../src/gates/settings.js";
import { settings, withClaim } from "./build.js";

export const SESSION = "01JQ0000000000000000000000";

/** A stored return crossing: read_discharge's 1250 ft^3/s at call 1 of SESSION, unless overridden. */
export function crossing(fields: Partial<LedgerCrossing> = {}): LedgerCrossing {
  return {
    id: 7,
    session_id: SESSION,
    seq: 1,
    tool: "read_discharge",
    field: "return.discharge",
    value: 1250,
    series: null,
    unit: "ft^3/s",
    quality: "approved",
    observed_at: "2026-03-14T10:15:00.000-05:00",
    revised: null,
    ...fields,
  };
}

/** Runs the evidence gate on the good result whose fact F1 has these fields, against these scopes. */
export function gateWith(
  fact: Record<string, unknown>,
  scopes: Record<string, LedgerCrossing[] | null>,
  partial: PartialSettings = {},
) {
  const run = withClaim(0, fact);
  const snapshot = snapshotEvidence(memoryResolver(new Map(Object.entries(scopes))), [run]);
  const links: SourceLink[] = [];
  const outcome = evidenceGate(run, settings(partial), { ledger: snapshot, links });
  return { outcome, links, messages: outcome.findings.map((f) => `${f.code} ${f.severity}: ${f.message}`) };
}
