// Tool pinning ("rug pull" protection): the definition of each upstream tool is pinned with the SHA-256 of its RFC 8785
// canonical JSON when first seen; a later tools/list that differs is a drift (changed, removed, added). checkPins is
// the one decision: given the pins, the drifts still open and a new listing, what is new, what is served, what hidden.
import { createHash } from "node:crypto";
import { canonicalJson } from "../provenance/canonical-json.js";
import type { PinMode } from "./config.js";

/** The parts of a tool that an agent relies on and a pin covers (MCP 2025-11-25 Tool, minus title and icons). */
export const PINNED_FIELDS = ["name", "description", "inputSchema", "outputSchema", "annotations"] as const;

/** A tool definition as pinned: the pinned fields the upstream gave, nothing else. */
export type ToolDefinition = { name: string } & Partial<Record<(typeof PINNED_FIELDS)[number], unknown>>;

/** A pinned definition. */
export type Pin = { tool: string; definition: ToolDefinition; digest: string; pinned_at: string };

/** What changed about a tool since it was pinned. */
export type DriftKind = "changed" | "removed" | "added";

/** A drift as stored and listed (API.md "Gateway"); `approved_at` null while it waits for approval. */
export type Drift = {
  tool: string;
  kind: DriftKind;
  before: ToolDefinition | null;
  after: ToolDefinition | null;
  detected_at: string;
  approved_at: string | null;
};

/** The answer of checkPins. */
export type PinCheck = {
  /** Pins to store now: every tool on an upstream's first listing. */
  newPins: Pin[];
  /** Drifts to store now (a drift already open with the same new definition is not stored twice). */
  newDrifts: Drift[];
  /** Upstream tool names served, in listing order. */
  served: string[];
  /** Tools hidden from tools/list by `pin = "block"`, each with the tool-error text a call to it answers. */
  blocked: { tool: string; message: string }[];
  /** Served tools that differ from their pin (`pin = "warn"`): the session is labelled with them. */
  drifted: string[];
  /** The digest of each listed tool's definition as served: what a call to it is checked against (calls.tool_digest). */
  digests: Record<string, string>;
};

/** The pinned fields of a listed tool, in a fixed shape (absent fields left out). */
export function definitionOf(tool: { name: string } & Record<string, unknown>): ToolDefinition {
  const def: ToolDefinition = { name: tool.name };
  for (const f of PINNED_FIELDS) if (f !== "name" && tool[f] !== undefined) def[f] = tool[f];
  return def;
}

/** The lowercase hex SHA-256 of a definition's RFC 8785 canonical JSON (UTF-8). */
export function toolDigest(definition: ToolDefinition): string {
  return createHash("sha256")
    .update(canonicalJson(definitionOf(definition)), "utf8")
    .digest("hex");
}

/** Which pinned fields differ between two definitions, in PINNED_FIELDS order. */
export function changedFields(before: ToolDefinition, after: ToolDefinition): string[] {
  return PINNED_FIELDS.filter((f) => canonicalJson(before[f] ?? null) !== canonicalJson(after[f] ?? null));
}

/** How an operator approves a drifted tool, in words the agent can pass on. */
export function approvalHint(upstream: string, tool: string): string {
  return `approve it with \`agent-ledger pins approve ${upstream} ${tool}\` or POST /v1/upstreams/${upstream}/approve with {"tool": "${tool}"}`;
}

/** The tool-error text of a call to a tool that `pin = "block"` hides: what changed, since when, how to approve. */
export function blockedMessage(upstream: string, drift: Drift, pinnedAt: string | null): string {
  const what =
    drift.kind === "added"
      ? "is new: it was not in the upstream's tool list when the upstream was pinned"
      : `changed its ${changedFields(drift.before!, drift.after!).join(", ")} since it was pinned${pinnedAt ? ` at ${pinnedAt}` : ""}`;
  return (
    `tool '${drift.tool}' of upstream '${upstream}' is blocked: it ${what} (detected at ${drift.detected_at}); ` +
    `the gateway does not call a tool whose definition was not approved; ${approvalHint(upstream, drift.tool)}`
  );
}

/**
 * Compares a new tools/list of one upstream with its pins and open drifts. First listing (no pins, no open drift):
 * every tool is pinned. Later: a tool whose digest differs from its pin is `changed`, a pinned tool not listed is
 * `removed`, an unpinned one is `added`; `warn` serves them all, `block` hides the changed and added ones until
 * approved, `off` pins nothing and serves everything.
 */
export function checkPins(input: {
  upstream: string;
  mode: PinMode;
  pins: readonly Pin[];
  openDrifts: readonly Drift[];
  listed: readonly ToolDefinition[];
  now: string;
}): PinCheck {
  const { upstream, mode, pins, openDrifts, listed, now } = input;
  const defs = listed.map(definitionOf);
  const digests = Object.fromEntries(defs.map((d) => [d.name, toolDigest(d)]));
  const check: PinCheck = { newPins: [], newDrifts: [], served: [], blocked: [], drifted: [], digests };
  if (mode === "off") {
    check.served = defs.map((d) => d.name);
    return check;
  }
  if (pins.length === 0 && openDrifts.length === 0) {
    check.newPins = defs.map((d) => ({ tool: d.name, definition: d, digest: digests[d.name]!, pinned_at: now }));
    check.served = defs.map((d) => d.name);
    return check;
  }
  const pinned = new Map(pins.map((p) => [p.tool, p]));
  // The latest open drift of each tool: a repeated listing of the same drifted definition is not a new drift.
  const open = new Map<string, Drift>();
  for (const d of openDrifts) open.set(d.tool, d);
  const note = (drift: Drift): Drift => {
    const last = open.get(drift.tool);
    const same =
      last !== undefined &&
      last.kind === drift.kind &&
      (last.after === null
        ? drift.after === null
        : drift.after !== null && toolDigest(last.after) === toolDigest(drift.after));
    if (same) return last;
    check.newDrifts.push(drift);
    return drift;
  };
  for (const def of defs) {
    const pin = pinned.get(def.name);
    if (pin && pin.digest === digests[def.name]) {
      check.served.push(def.name);
      continue;
    }
    const drift = note({
      tool: def.name,
      kind: pin ? "changed" : "added",
      before: pin ? pin.definition : null,
      after: def,
      detected_at: now,
      approved_at: null,
    });
    if (mode === "block")
      check.blocked.push({ tool: def.name, message: blockedMessage(upstream, drift, pin?.pinned_at ?? null) });
    else {
      check.served.push(def.name);
      check.drifted.push(def.name);
    }
  }
  const listedNames = new Set(defs.map((d) => d.name));
  for (const pin of pins)
    if (!listedNames.has(pin.tool))
      note({
        tool: pin.tool,
        kind: "removed",
        before: pin.definition,
        after: null,
        detected_at: now,
        approved_at: null,
      });
  return check;
}

/** The session label key a `warn` gateway sets when a session uses an upstream whose tools drifted. */
export const DRIFT_LABEL = "gateway.drift";

/**
 * The label value naming drifted tools as `<upstream>.<tool>`, comma-separated, sorted; cut to the 256 characters a
 * label value may hold, ending in `,+N` for the N names left out. Null when nothing drifted.
 */
export function driftLabel(drifted: readonly { upstream: string; tool: string }[]): string | null {
  const names = [...new Set(drifted.map((d) => `${d.upstream}.${d.tool}`))].sort();
  if (names.length === 0) return null;
  let out = "";
  for (let i = 0; i < names.length; i += 1) {
    const next = out === "" ? names[i]! : `${out},${names[i]}`;
    const rest = names.length - i - 1;
    if (next.length + (rest > 0 ? `,+${rest}`.length : 0) > 256) return `${out},+${names.length - i}`;
    out = next;
  }
  return out;
}
