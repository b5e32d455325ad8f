// The OpenAPI document's finishing: an operationId for every operation (client generators name methods after it),
// the servers entry and the licence. Route modules stay as they are; the names live here as one table.
import { readFileSync } from "node:fs";

type Operation = { operationId?: string } & Record<string, unknown>;

/** An OpenAPI 3.1 document, as far as the finishing touches it. */
export type OpenApiDocument = {
  info: { title: string; version: string; description?: string; license?: { name: string; identifier?: string } };
  servers?: { url: string; description?: string }[];
  paths?: Record<string, Record<string, Operation | undefined> | undefined>;
} & Record<string, unknown>;

const ERROR_REF = { "application/json": { schema: { $ref: "#/components/schemas/Error" } } };

// Answers any /v1 route may give whatever it does: a store fault, and (for a body) the depth and text checks.
const STORE_FAULTS = {
  "503": {
    description: "storage_busy: the store stayed busy past its timeout; nothing was stored (see Retry-After)",
    content: ERROR_REF,
  },
  "507": { description: "storage_full: the disk is full; nothing was stored, reads still work", content: ERROR_REF },
};
const BODY_LIMITS = {
  "413": {
    description: "too_deep (or another limit): over a limit (details: limit, count, setting); nothing was stored",
    content: ERROR_REF,
  },
};

/** Adds the store-fault answers to every /v1 operation, and the depth limit to every one that takes a body. */
function addCommonResponses(doc: OpenApiDocument): void {
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    if (!path.startsWith("/v1/")) continue;
    for (const method of METHODS) {
      const op = item?.[method];
      if (!op) continue;
      const responses = (op.responses ?? {}) as Record<string, unknown>;
      const extra = op.requestBody === undefined ? STORE_FAULTS : { ...BODY_LIMITS, ...STORE_FAULTS };
      for (const [status, answer] of Object.entries(extra)) responses[status] ??= answer;
      op.responses = responses;
    }
  }
}

/** The operationId of each operation, by "METHOD path". A route missing here gets a derived name (deriveOperationId). */
export const OPERATION_IDS: Readonly<Record<string, string>> = {
  "GET /healthz": "getHealth",
  "POST /v1/admin/teams": "createTeam",
  "POST /v1/admin/teams/{id}/tokens": "createTeamToken",
  "DELETE /v1/admin/tokens/{token_id}": "revokeToken",
  "POST /v1/convert": "convertQuantity",
  "POST /v1/compute": "computeQuantities",
  "GET /v1/datums": "listDatums",
  "POST /v1/datums": "createDatum",
  "POST /v1/datums/offsets": "createDatumOffset",
  "GET /v1/tools": "listTools",
  "PUT /v1/tools/{name}": "declareTool",
  "GET /v1/tools/{name}": "getTool",
  "GET /v1/tools/{name}/schema": "getToolSchema",
  "POST /v1/sessions": "createSession",
  "GET /v1/sessions": "listSessions",
  "GET /v1/sessions/{id}": "getSession",
  "POST /v1/sessions/{id}/calls": "checkCall",
  "GET /v1/sessions/{id}/calls": "listCalls",
  "POST /v1/sessions/{id}/calls/{call_id}/result": "recordCallResult",
  "GET /v1/sessions/{id}/report": "getSessionReport",
  "GET /v1/sessions/{id}/manifest": "getSessionManifest",
  "POST /v1/sessions/{id}/audit": "auditAnswer",
  "POST /v1/sessions/{id}/packs/{tool}": "callPack",
  "GET /v1/crossings": "listCrossings",
  "POST /v1/replay": "replaySession",
  "GET /v1/packs/usgs/sites/{site}": "getUsgsSite",
  "GET /v1/packs/usgs/sites/{site}/reading": "getUsgsReading",
  "GET /v1/packs/usgs/sites/{site}/series": "getUsgsSeries",
  "GET /v1/packs/usgs/sites/{site}/daily": "getUsgsDaily",
  "GET /v1/packs/usgs-legacy/sites/{site}": "getUsgsLegacySite",
  "GET /v1/packs/usgs-legacy/sites/{site}/reading": "getUsgsLegacyReading",
  "GET /v1/revisions/watch": "getRevisionWatch",
  "GET /v1/packs/ea/stations/{id}": "getEaStation",
  "GET /v1/packs/ea/stations/{id}/reading": "getEaReading",
  "POST /v1/claims": "createClaim",
  "GET /v1/claims": "listClaims",
  "GET /v1/claims/export": "exportClaims",
  "POST /v1/claims/import": "importClaims",
  "GET /v1/claims/{id}": "getClaim",
  "POST /v1/claims/{id}/demote": "demoteClaim",
  "POST /v1/evaluations": "createEvaluation",
  "GET /v1/evaluations": "listEvaluations",
  "GET /v1/evaluations/{id}": "getEvaluation",
  "PUT /v1/bench/runs/{session_id}": "storeBenchRun",
  "GET /v1/bench/runs": "listBenchRuns",
  "POST /v1/crossings/{id}/revise": "reviseCrossing",
  "GET /v1/revisions": "listRevisions",
  "GET /v1/revisions/{id}": "getRevision",
  "GET /v1/crossings/{id}/claims": "listCrossingClaims",
  "GET /v1/upstreams": "listUpstreams",
  "POST /v1/upstreams/{name}/approve": "approveUpstream",
  "POST /v1/upstreams/{name}/observe": "observeUpstream",
};

const METHODS = ["get", "put", "post", "patch", "delete", "head", "options"] as const;

/** A name for a route the table does not hold: the method, then each literal path segment after /v1 ("postSessionsRevisions"). */
export function deriveOperationId(method: string, path: string): string {
  const words = path
    .split("/")
    .filter((s) => s !== "" && s !== "v1" && !s.startsWith("{"))
    .flatMap((s) => s.split(/[^A-Za-z0-9]+/))
    .filter(Boolean);
  return [method.toLowerCase(), ...words.map((w) => w[0]!.toUpperCase() + w.slice(1))].join("");
}

/** The licence of package.json, as the document's info.license ("UNLICENSED" when none is declared). */
function packageLicence(): { name: string; identifier?: string } {
  const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { license?: string };
  const id = pkg.license?.trim();
  if (!id || id === "UNLICENSED") return { name: "UNLICENSED: no licence is granted (package.json declares none)" };
  return { name: id, identifier: id };
}

/**
 * Adds what the generated document lacks: operationIds (explicit ones kept; a clash gets a numeric suffix),
 * `servers` (the service itself, relative, so it holds behind any host or proxy) and the licence.
 */
export function finishDocument<T extends OpenApiDocument>(doc: T): T {
  const taken = new Set<string>();
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const method of METHODS) {
      const op = item?.[method];
      if (!op) continue;
      const wanted =
        op.operationId ?? OPERATION_IDS[`${method.toUpperCase()} ${path}`] ?? deriveOperationId(method, path);
      let id = wanted;
      for (let n = 2; taken.has(id); n += 1) id = `${wanted}${n}`;
      taken.add(id);
      op.operationId = id;
    }
  }
  addCommonResponses(doc);
  doc.servers = [{ url: "/", description: "this agent-ledger service (the host serving this document)" }];
  doc.info.license = packageLicence();
  return doc;
}
