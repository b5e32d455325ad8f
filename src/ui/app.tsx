// The dashboard under /ui: security headers with a strict CSP, CSRF checks on every unsafe request, the login, the
// static assets, then the pages behind the session cookie. Registered on the main app by registerDashboard.
import { Hono } from "hono";
import { csrf } from "hono/csrf";
import { HTTPException } from "hono/http-exception";
import { secureHeaders } from "hono/secure-headers";
import { ASSET_FILES } from "./assets.js";
import { formsOnly, registerLogin, requireSession } from "./auth.js";
import type { UiApp, UiDeps, UiEnv } from "./env.js";
import { problemPage } from "./problem.js";
import { registerClaimPages } from "./pages/claims.js";
import { registerCrossingsPage } from "./pages/crossings.js";
import { registerEvaluationPages } from "./pages/evaluations.js";
import { registerOverviewPage } from "./pages/overview.js";
import { registerRevisionsPage } from "./pages/revisions.js";
import { registerSessionPage } from "./pages/session.js";
import { registerSessionsPage } from "./pages/sessions.js";
import { registerUpstreamsPage } from "./pages/upstreams.js";
import { QueryError } from "../query-params.js";

/** Every page module, in registration order (static paths before `{id}` paths). Add a page here and nowhere else. */
const PAGES: readonly ((ui: UiApp, deps: UiDeps) => void)[] = [
  registerOverviewPage,
  registerSessionsPage,
  registerSessionPage,
  registerCrossingsPage,
  registerEvaluationPages,
  registerClaimPages,
  registerRevisionsPage,
  (ui, deps) => {
    registerUpstreamsPage(ui, deps.upstreams);
  },
];

/** The Content-Security-Policy of every /ui answer: this origin's script and style only, no inline code. */
export const CSP = {
  defaultSrc: ["'none'"],
  scriptSrc: ["'self'"],
  styleSrc: ["'self'"],
  imgSrc: ["'self'"],
  connectSrc: ["'self'"],
  formAction: ["'self'"],
  frameAncestors: ["'none'"],
  baseUri: ["'none'"],
};

/** The dashboard sub-app, to be mounted at /ui. */
export function createDashboard(deps: UiDeps): UiApp {
  const ui = new Hono<UiEnv>();
  ui.onError((err, c) => {
    if (err instanceof QueryError) return problemPage(c, 400, "This filter cannot be read", err.message);
    if (err instanceof HTTPException && err.status === 403)
      return problemPage(
        c,
        403,
        "Refused: posted from another site",
        "The dashboard only accepts forms posted from its own pages.",
      );
    throw err;
  });
  ui.use(
    "*",
    secureHeaders({
      contentSecurityPolicy: CSP,
      referrerPolicy: "same-origin",
      crossOriginEmbedderPolicy: "require-corp",
    }),
  );
  ui.use("*", csrf());
  ui.use("*", formsOnly);
  ui.get("/assets/:file", (c) => {
    const asset = ASSET_FILES.get(c.req.path);
    if (!asset) return c.text("no such asset", 404);
    c.header("Cache-Control", "public, max-age=31536000, immutable");
    return c.body(asset.body, 200, { "Content-Type": asset.type });
  });
  registerLogin(ui, deps);
  ui.use("*", requireSession(deps));
  for (const register of PAGES) register(ui, deps);
  ui.all("*", (c) => problemPage(c, 404, "Not found", `Nothing in this team's ledger answers ${c.req.path}.`));
  return ui;
}
