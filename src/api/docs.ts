// /docs: Swagger UI over /openapi.json, served from node_modules/swagger-ui-dist (pinned in package.json, never a
// CDN). The page holds no inline script (its start-up script is a file), so a strict Content-Security-Policy holds.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

type Asset = { body: string | Uint8Array<ArrayBuffer>; type: string };

const require = createRequire(import.meta.url);
const DIST = dirname(require.resolve("swagger-ui-dist/package.json"));

/** What the page and its files may load: only this origin, and no inline or evaluated script. */
export const DOCS_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
  "connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

// Starts Swagger UI. The token entered once in Authorize applies to every operation (the document's global bearer
// security) for as long as the page is open; it is not kept in localStorage (persistAuthorization off), where any
// script of this origin could read it after the tab is closed. validatorUrl: null, or the page would send the
// document to validator.swagger.io.
const INIT_SCRIPT = `// agent-ledger: starts Swagger UI on the service's OpenAPI document.
"use strict";
(function () {
  var here = document.currentScript ? document.currentScript.src : window.location.href;
  window.addEventListener("DOMContentLoaded", function () {
    window.ui = SwaggerUIBundle({
      url: new URL("../openapi.json", here).href,
      dom_id: "#swagger-ui",
      deepLinking: true,
      persistAuthorization: false,
      displayOperationId: true,
      displayRequestDuration: true,
      filter: true,
      tryItOutEnabled: true,
      validatorUrl: null,
    });
  });
})();
`;

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>agent-ledger API</title>
<link rel="stylesheet" href="/docs/swagger-ui.css">
<link rel="icon" type="image/png" href="/docs/favicon-32x32.png">
</head>
<body>
<div id="swagger-ui"></div>
<noscript>This page runs Swagger UI and needs JavaScript; the OpenAPI document itself is at /openapi.json.</noscript>
<script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script>
</body>
</html>
`;

/** A file of swagger-ui-dist; source-map comments are dropped, since the maps are not served. */
const dist = (name: string, type: string): (() => Asset) => {
  return () => {
    const raw = readFileSync(join(DIST, name));
    if (!type.startsWith("text/")) return { body: new Uint8Array(raw), type };
    return { body: raw.toString("utf8").replace(/\n?\/[/*]# sourceMappingURL=[^\n]*$/, ""), type };
  };
};

/** The files under /docs/, by name: read on first request (1.5 MB the CLI and most tests never need). */
const FILES: Record<string, () => Asset> = {
  "swagger-ui.css": dist("swagger-ui.css", "text/css; charset=utf-8"),
  "swagger-ui-bundle.js": dist("swagger-ui-bundle.js", "text/javascript; charset=utf-8"),
  "favicon-32x32.png": dist("favicon-32x32.png", "image/png"),
  "init.js": () => ({ body: INIT_SCRIPT, type: "text/javascript; charset=utf-8" }),
};

const loaded = new Map<string, Asset>();

/** The HTML of /docs. */
export function docsPage(): string {
  return PAGE;
}

/** A file under /docs/ by name, or null when there is no such file. */
export function docsAsset(name: string): Asset | null {
  const load = Object.hasOwn(FILES, name) ? FILES[name] : undefined;
  if (!load) return null;
  let asset = loaded.get(name);
  if (!asset) loaded.set(name, (asset = load()));
  return asset;
}

/** The swagger-ui-dist version served (package.json pins it). */
export function swaggerUiVersion(): string {
  return (JSON.parse(readFileSync(join(DIST, "package.json"), "utf8")) as { version: string }).version;
}
