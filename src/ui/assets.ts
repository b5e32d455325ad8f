// The dashboard's static files, read once at start: our stylesheet and icon, and htmx from node_modules (pinned in
// package.json, never a CDN). Each URL carries a hash of its content, so browsers may cache it for a year.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

type Asset = { body: string; type: string };

const require = createRequire(import.meta.url);
const local = (name: string) => readFileSync(fileURLToPath(new URL(`./assets/${name}`, import.meta.url)), "utf8");
const tag = (body: string) => createHash("sha256").update(body).digest("hex").slice(0, 10);

const css = local("app.css");
const icon = local("icon.svg");
const htmx = readFileSync(require.resolve("htmx.org/dist/htmx.min.js"), "utf8");

/** The URL of each asset the layout links to. */
export const ASSETS = {
  css: `/ui/assets/app.${tag(css)}.css`,
  icon: `/ui/assets/icon.${tag(icon)}.svg`,
  htmx: `/ui/assets/htmx.${tag(htmx)}.min.js`,
} as const;

/** The assets by URL path. */
export const ASSET_FILES: ReadonlyMap<string, Asset> = new Map([
  [ASSETS.css, { body: css, type: "text/css; charset=utf-8" }],
  [ASSETS.icon, { body: icon, type: "image/svg+xml" }],
  [ASSETS.htmx, { body: htmx, type: "text/javascript; charset=utf-8" }],
]);
