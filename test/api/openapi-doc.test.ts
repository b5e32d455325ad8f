// The served OpenAPI document as client generators and linters read it, and the Swagger UI page over it.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { DOCS_CSP, swaggerUiVersion } from "../../src/api/docs.js";
import { deriveOperationId, OPERATION_IDS } from "../../src/api/openapi-doc.js";
import { createTestApp } from "../helpers/db.js";

type Doc = {
  servers?: { url: string }[];
  info: { license?: { name: string } };
  paths: Record<string, Record<string, { operationId?: string }>>;
};

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function served(): Promise<Doc> {
  const { app } = createTestApp();
  return (await (await app.request("/openapi.json")).json()) as Doc;
}

const operations = (doc: Doc) =>
  Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({ key: `${method.toUpperCase()} ${path}`, id: op.operationId })),
  );

describe("the OpenAPI document", () => {
  it("gives every operation a unique operationId, from the table for every route served today", async () => {
    const ops = operations(await served());
    expect(ops.filter((o) => !o.id)).toEqual([]);
    expect(new Set(ops.map((o) => o.id)).size).toBe(ops.length);
    for (const o of ops)
      expect([o.key, o.id]).toEqual([o.key, OPERATION_IDS[o.key] ?? deriveOperationId(...split(o.key))]);
    // A route added without an entry still gets a name; the table keeps today's names stable.
    expect(ops.find((o) => o.key === "POST /v1/sessions/{id}/calls")?.id).toBe("checkCall");
    expect(deriveOperationId("post", "/v1/sessions/{id}/revisions")).toBe("postSessionsRevisions");
  });

  it("has a servers entry relative to the service and the licence of package.json", async () => {
    const doc = await served();
    expect(doc.servers).toEqual([
      { url: "/", description: "this agent-ledger service (the host serving this document)" },
    ]);
    expect(doc.info.license).toEqual({ name: "UNLICENSED: no licence is granted (package.json declares none)" });
  });

  it("passes `redocly lint` (pinned @redocly/cli, recommended rules) with no error", async () => {
    const dir = mkdtempSync(join(tmpdir(), "openapi-lint-"));
    dirs.push(dir);
    const file = join(dir, "openapi.json");
    writeFileSync(file, JSON.stringify(await served()));
    const cli = join(ROOT, "node_modules/@redocly/cli/bin/cli.js");
    const out = await new Promise<string>((resolve) => {
      execFile(
        process.execPath,
        [cli, "lint", file, "--format=json", `--config=${join(ROOT, "redocly.yaml")}`],
        {
          cwd: dir,
          timeout: 180_000,
          maxBuffer: 16 * 1024 * 1024,
          env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true", NO_COLOR: "1" },
        },
        (_e, stdout) => resolve(stdout),
      );
    });
    const report = JSON.parse(out.slice(out.indexOf("{"))) as {
      totals: { errors: number; warnings: number };
      problems: { severity: string; ruleId: string; message: string; location: { pointer: string }[] }[];
    };
    const errors = report.problems.filter((p) => p.severity === "error");
    expect(errors.map((p) => `${p.ruleId} at ${p.location[0]?.pointer}: ${p.message}`)).toEqual([]);
    expect(report.totals.errors).toBe(0);
    // What is left are warnings this project accepts: no licence chosen yet, and a liveness probe with no 4xx.
    expect(report.problems.map((p) => p.ruleId).sort()).toEqual(["info-license-strict", "operation-4xx-response"]);
  }, 240_000);
});

function split(key: string): [string, string] {
  const [method, path] = key.split(" ");
  return [method!.toLowerCase(), path!];
}

describe("the API page", () => {
  it("GET /docs serves Swagger UI from this origin with no inline script, under a strict CSP", async () => {
    const { app } = createTestApp();
    const res = await app.request("/docs");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    expect(res.headers.get("content-security-policy")).toBe(DOCS_CSP);
    expect(DOCS_CSP).toContain("script-src 'self';");
    const html = await res.text();
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.map((m) => [m[1]?.trim(), m[2]])).toEqual([
      ['src="/docs/swagger-ui-bundle.js"', ""],
      ['src="/docs/init.js"', ""],
    ]);
    expect(html).toContain('<link rel="stylesheet" href="/docs/swagger-ui.css">');
    expect(html).not.toMatch(/https?:\/\//);
  });

  it("serves swagger-ui-dist's own files under /docs/ and the start-up script that keeps the token", async () => {
    const { app } = createTestApp();
    const bundle = await app.request("/docs/swagger-ui-bundle.js");
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    const code = await bundle.text();
    expect(code).toContain("SwaggerUIBundle");
    expect(code).not.toMatch(/sourceMappingURL=\S+\s*$/);
    expect(swaggerUiVersion()).toBe("5.35.0");
    const css = await app.request("/docs/swagger-ui.css");
    expect([css.status, css.headers.get("content-type")]).toEqual([200, "text/css; charset=utf-8"]);
    const init = await (await app.request("/docs/init.js")).text();
    expect(init).toContain("persistAuthorization: false");
    expect(init).toContain("validatorUrl: null");
    expect(init).toContain('new URL("../openapi.json", here)');
    const missing = await app.request("/docs/swagger-ui-bundle.js.map");
    expect([missing.status, await missing.json()]).toEqual([
      404,
      { error: { code: "not_found", message: "no file /docs/swagger-ui-bundle.js.map: the API page is at /docs" } },
    ]);
  });

  it("GET / no longer answers a JSON 404: it redirects to the dashboard", async () => {
    const { app } = createTestApp();
    const res = await app.request("/");
    expect([res.status, res.headers.get("location")]).toEqual([302, "/ui"]);
  });
});
