// The gateway never overwrites a team's declaration: planned `<namespace>.<tool>` names checked against /v1/tools,
// over a real SQLite store.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkDeclarations, DeclarationClashError, planDeclarations } from "../../src/gateway/clash.js";
import { gatewayFromFlags } from "../../src/gateway/from-flags.js";
import { parseGatewayConfig } from "../../src/gateway/config.js";
import type { ToolDeclarationInput } from "../../src/guard/declaration.js";
import type { LedgerStore } from "../../src/store/port.js";
import { openSqliteStore } from "../../src/store/sqlite/store.js";

const REST: ToolDeclarationInput = {
  description: "Runoff depth over a basin.",
  params: { discharge: { unit: "m**3/s" }, area: { unit: "km**2", sourced: true } },
  returns: { unit: "mm/day" },
};
const UPSTREAM: ToolDeclarationInput = {
  description: "Runoff depth (upstream's own).",
  params: { discharge: { unit: "ft**3/s" }, area: { unit: "mi**2" } },
  returns: { unit: "in/day" },
};
const config = parseGatewayConfig('[upstreams.hydro]\ncommand = ["node", "hydro.js"]\n', "gateway.toml", {});
const annotated = new Map([["hydro", new Map([["runoff_depth", UPSTREAM]])]]);

/** What the lead's proxy does at start: list the team's declarations, check the plan, declare what it answers. */
async function startGateway(store: LedgerStore, team: string, overwrite = false) {
  const existing = (await store.tools.list(team, { limit: 500 })).map((t) => ({
    name: t.row.name,
    version: t.row.version,
    declaration: t.row.declaration,
  }));
  const { declare } = checkDeclarations(existing, planDeclarations(config, annotated), overwrite);
  for (const d of declare) await store.tools.put(team, d.name, d.declaration);
  return declare.map((d) => d.name);
}

describe("declaration clashes", () => {
  let store: LedgerStore;
  let team: string;
  beforeAll(async () => {
    store = openSqliteStore(":memory:");
    team = (await store.teams.create("water")).id;
  });
  afterAll(() => store.close());

  it("plans every annotated tool under its upstream's namespace, also from the single-upstream flags", () => {
    expect(planDeclarations(config, annotated).map((p) => [p.name, p.upstream, p.tool])).toEqual([
      ["hydro.runoff_depth", "hydro", "runoff_depth"],
    ]);
    const flags = gatewayFromFlags({ target: { command: ["node", "hydro.js"] }, annotations: "a.toml" });
    expect(planDeclarations(flags, annotated).map((p) => p.name)).toEqual(["hydro.runoff_depth"]);
  });

  it("leaves a REST declaration with the same name as an upstream tool exactly as it was", async () => {
    await store.tools.put(team, "runoff_depth", { ...REST, description: "v1" });
    await store.tools.put(team, "runoff_depth", REST);
    const before = await store.tools.get(team, "runoff_depth");
    expect(before!.row.version).toBe(2);
    expect(await startGateway(store, team)).toEqual(["hydro.runoff_depth"]);
    const after = await store.tools.get(team, "runoff_depth");
    expect(after!.row).toEqual(before!.row);
    expect(after!.row.declaration).toEqual(REST);
    expect((await store.tools.get(team, "hydro.runoff_depth"))!.row.declaration).toEqual(UPSTREAM);
    // A second start declares nothing: its own declaration is identical.
    expect(await startGateway(store, team)).toEqual([]);
  });

  it("refuses at start a REST declaration under the gateway's name with other content, naming both, unless overridden", async () => {
    const other = (await store.teams.create("clash")).id;
    await store.tools.put(other, "hydro.runoff_depth", REST);
    const err = await startGateway(store, other).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DeclarationClashError);
    expect((err as Error).message).toBe(
      "upstream 'hydro' would declare its tool 'runoff_depth' as 'hydro.runoff_depth', but the ledger already holds version 1 " +
        "of 'hydro.runoff_depth' (declared through /v1/tools) with other content; the gateway does not replace a team's " +
        'declaration: give the upstream another namespace (namespace = "..." in its [upstreams.NAME] table, or --namespace), ' +
        "or start it with --overwrite-declarations (overwrite_declarations = true in the gateway file) to replace it",
    );
    expect((await store.tools.get(other, "hydro.runoff_depth"))!.row.version).toBe(1);
    expect(await startGateway(store, other, true)).toEqual(["hydro.runoff_depth"]);
    expect((await store.tools.get(other, "hydro.runoff_depth"))!.row.version).toBe(2);
  });
});
