// Reads one session's rows (calls, crossings, declaration versions, datums, audits) and builds its manifest.
import { buildManifest, type Manifest } from "../../provenance/manifest.js";
import { auditsFor } from "./audits.js";
import { listDatums, listOffsets } from "./datums.js";
import type { Ledger } from "./ledger.js";
import type { ToolRow } from "../model.js";

/** The manifest of a stored session, read in one snapshot; 404 for another team's or an unknown id. */
export function loadManifest(ledger: Ledger, teamId: string, sessionId: string): Manifest {
  return ledger.store.sqlite.transaction(() => {
    const session = ledger.sessions.get(teamId, sessionId);
    const calls = ledger.sessions.calls(teamId, sessionId);
    const crossings = ledger.sessions.crossings(teamId, sessionId);
    const tools = new Map<string, ToolRow>();
    for (const c of calls) {
      if (c.toolVersion === null) continue;
      const key = `${c.tool}\u0000${c.toolVersion}`;
      if (tools.has(key)) continue;
      const row = ledger.tools.version(teamId, c.tool, c.toolVersion);
      if (row) tools.set(key, row);
    }
    return buildManifest({
      session,
      calls,
      crossings,
      tools: [...tools.values()],
      datums: listDatums(ledger.store.db, teamId),
      offsets: listOffsets(ledger.store.db, teamId),
      audits: auditsFor(ledger.store.sqlite).forSession(teamId, sessionId),
    });
  })();
}
