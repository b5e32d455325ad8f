// Never overwrite a team's declaration: everything the gateway declares goes under `<namespace>.<tool>` (the
// upstream's name by default), and a declaration already in the ledger under that name with other content is a clash,
// refused at start naming both, unless the operator set overwrite_declarations (--overwrite-declarations).
import type { ToolDeclarationInput } from "../guard/declaration.js";
import { canonicalJson } from "../provenance/canonical-json.js";
import type { GatewayConfig } from "./config.js";
import { ledgerName } from "./names.js";

/** One declaration the gateway would make: its ledger name, the upstream tool it stands for, and its content. */
export type PlannedDeclaration = { name: string; upstream: string; tool: string; declaration: ToolDeclarationInput };

/** A declaration already in the team's ledger (GET /v1/tools): name, latest version, content as declared. */
export type ExistingDeclaration = { name: string; version: number; declaration: unknown };

/** A planned declaration whose name the ledger holds with other content. */
export type Clash = { planned: PlannedDeclaration; existing: ExistingDeclaration };

/** The gateway would replace a team's declaration; the message names both and the two ways out. */
export class DeclarationClashError extends Error {
  readonly code = "declaration_clash";
  constructor(readonly clashes: Clash[]) {
    super(
      `${clashes.map(clashText).join("; ")}; the gateway does not replace a team's declaration: give the upstream another ` +
        'namespace (namespace = "..." in its [upstreams.NAME] table, or --namespace), or start it with ' +
        "--overwrite-declarations (overwrite_declarations = true in the gateway file) to replace it",
    );
    this.name = "DeclarationClashError";
  }
}

/** One clash in words. */
export function clashText(c: Clash): string {
  return (
    `upstream '${c.planned.upstream}' would declare its tool '${c.planned.tool}' as '${c.planned.name}', but the ledger ` +
    `already holds version ${c.existing.version} of '${c.existing.name}' (declared through /v1/tools) with other content`
  );
}

/**
 * The declarations the gateway would make: each annotated tool of each upstream under `<namespace>.<tool>`, in
 * config order. `annotated` holds, per upstream name, its annotation file's declarations by the upstream's tool name.
 */
export function planDeclarations(
  config: GatewayConfig,
  annotated: ReadonlyMap<string, ReadonlyMap<string, ToolDeclarationInput>>,
): PlannedDeclaration[] {
  const out: PlannedDeclaration[] = [];
  for (const u of config.upstreams)
    for (const [tool, declaration] of annotated.get(u.name) ?? [])
      out.push({ name: ledgerName(u.namespace, tool), upstream: u.name, tool, declaration });
  return out;
}

/**
 * Checks the plan against the team's declarations. Answers the declarations to make now (new names, and names whose
 * content the gateway itself changes when `overwrite` is set); an identical declaration is left alone. A clash throws
 * DeclarationClashError unless `overwrite` is true. Names the gateway does not plan are never touched.
 */
export function checkDeclarations(
  existing: readonly ExistingDeclaration[],
  planned: readonly PlannedDeclaration[],
  overwrite: boolean,
): { declare: PlannedDeclaration[]; clashes: Clash[] } {
  const byName = new Map(existing.map((e) => [e.name, e]));
  const declare: PlannedDeclaration[] = [];
  const clashes: Clash[] = [];
  for (const p of planned) {
    const e = byName.get(p.name);
    if (e === undefined) declare.push(p);
    else if (canonicalJson(e.declaration) !== canonicalJson(p.declaration)) {
      clashes.push({ planned: p, existing: e });
      declare.push(p);
    }
  }
  if (clashes.length > 0 && !overwrite) throw new DeclarationClashError(clashes);
  return { declare, clashes };
}
