// Cross-cutting checks of /work/shared/API.md against the served OpenAPI document and the app's routes.
import { describe, expect, it } from "vitest";
import { createTestApp } from "../helpers/db.js";

type Parameter = { name: string; in: string; required?: boolean };
type Operation = {
  parameters?: Parameter[];
  requestBody?: unknown;
  responses: Record<string, { content?: Record<string, { schema?: unknown }> }>;
};
type Doc = {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown> };
};

/** Every route API.md names; the service may add routes, never remove these. */
const API_MD_ROUTES = [
  "GET /healthz",
  "POST /v1/convert",
  "POST /v1/compute",
  "GET /v1/datums",
  "POST /v1/datums",
  "POST /v1/datums/offsets",
  "PUT /v1/tools/{name}",
  "GET /v1/tools",
  "GET /v1/tools/{name}",
  "GET /v1/tools/{name}/schema",
  "POST /v1/sessions",
  "GET /v1/sessions",
  "GET /v1/sessions/{id}",
  "POST /v1/sessions/{id}/calls",
  "POST /v1/sessions/{id}/calls/{call_id}/result",
  "GET /v1/sessions/{id}/calls",
  "GET /v1/sessions/{id}/report",
  "POST /v1/sessions/{id}/audit",
  "GET /v1/sessions/{id}/manifest",
  "POST /v1/replay",
  "GET /v1/crossings",
  "POST /v1/claims",
  "POST /v1/claims/{id}/demote",
  "GET /v1/claims",
  "POST /v1/claims/import",
  "GET /v1/claims/export",
  "POST /v1/evaluations",
  "GET /v1/evaluations",
  "GET /v1/evaluations/{id}",
  "GET /v1/packs/usgs/sites/{site}",
  "GET /v1/packs/usgs/sites/{site}/reading",
  "GET /v1/packs/usgs/sites/{site}/series",
  "GET /v1/packs/usgs/sites/{site}/daily",
  "GET /v1/packs/usgs-legacy/sites/{site}",
  "GET /v1/packs/usgs-legacy/sites/{site}/reading",
  "GET /v1/packs/ea/stations/{id}",
  "GET /v1/packs/ea/stations/{id}/reading",
  "POST /v1/admin/teams",
  "POST /v1/admin/teams/{id}/tokens",
  "DELETE /v1/admin/tokens/{token_id}",
];

async function served(): Promise<{ doc: Doc; operations: [string, Operation][]; appRoutes: Set<string> }> {
  const t = createTestApp();
  const doc = (await t.call("GET", "/openapi.json", { token: null })).body as Doc;
  const operations = Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([m, op]) => [`${m.toUpperCase()} ${path}`, op] as [string, Operation]),
  );
  const appRoutes = new Set(
    t.app.routes.filter((r) => r.method !== "ALL").map((r) => `${r.method} ${r.path.replace(/:(\w+)/g, "{$1}")}`),
  );
  return { doc, operations, appRoutes };
}

/** True when an operation's 200 answer is a page `{items, next_cursor}` (following a top-level $ref). */
function isList(doc: Doc, op: Operation): boolean {
  let schema = op.responses["200"]?.content?.["application/json"]?.schema as
    | { $ref?: string; properties?: Record<string, unknown> }
    | undefined;
  if (schema?.$ref) schema = doc.components.schemas[schema.$ref.replace("#/components/schemas/", "")] as typeof schema;
  return schema?.properties?.next_cursor !== undefined;
}

describe("the OpenAPI document agrees with API.md and the routes", () => {
  it("is OpenAPI 3.1 and documents every route API.md names, served by the app", async () => {
    const { doc, operations, appRoutes } = await served();
    expect(doc.openapi).toBe("3.1.0");
    const documented = new Set(operations.map(([k]) => k));
    expect(API_MD_ROUTES.filter((r) => !documented.has(r))).toEqual([]);
    expect(API_MD_ROUTES.filter((r) => !appRoutes.has(r))).toEqual([]);
  });

  it("documents every route the app serves, and serves every route it documents", async () => {
    const { operations, appRoutes } = await served();
    const documented = new Set(operations.map(([k]) => k));
    // The dashboard's HTML pages (/ui, and / that redirects there) are not JSON API routes.
    const api = [...appRoutes].filter((r) => !/^[A-Z]+ \/ui\b/.test(r) && r !== "GET /");
    expect(api.filter((r) => !documented.has(r)).sort()).toEqual([
      "GET /docs",
      "GET /docs/{file}",
      "GET /openapi.json",
    ]);
    expect([...documented].filter((r) => !appRoutes.has(r))).toEqual([]);
  });

  it("gives every list optional limit and cursor query parameters (API.md, Conventions)", async () => {
    const { doc, operations } = await served();
    const lists = operations.filter(([, op]) => isList(doc, op));
    expect(lists.map(([k]) => k).sort()).toEqual([
      "GET /v1/claims",
      "GET /v1/crossings",
      "GET /v1/crossings/{id}/claims",
      "GET /v1/datums",
      "GET /v1/evaluations",
      "GET /v1/revisions",
      "GET /v1/sessions",
      "GET /v1/sessions/{id}/calls",
      "GET /v1/tools",
    ]);
    const missing = lists
      .filter(
        ([, op]) =>
          !["limit", "cursor"].every((n) =>
            op.parameters?.some((p) => p.in === "query" && p.name === n && p.required !== true),
          ),
      )
      .map(([k]) => k);
    expect(missing).toEqual([]);
  });

  it("documents 400 invalid_request wherever a query parameter or a request body can be refused", async () => {
    const { operations } = await served();
    const undocumented = operations
      .filter(([, op]) => op.requestBody !== undefined || (op.parameters ?? []).some((p) => p.in === "query"))
      .filter(([, op]) => op.responses["400"] === undefined)
      .map(([k]) => k);
    expect(undocumented).toEqual([]);
  });

  it("marks the crossing search's value and unit as required query parameters", async () => {
    const { doc } = await served();
    const params = doc.paths["/v1/crossings"]!.get!.parameters!;
    expect(
      params
        .filter((p) => p.required === true)
        .map((p) => p.name)
        .sort(),
    ).toEqual(["unit", "value"]);
  });
});
