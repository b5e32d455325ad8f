// Dashboard login: POST /ui/login exchanges a team token for a server-side session behind an HttpOnly, SameSite
// cookie; POST /ui/logout ends it; every page needs it. The cookie is the only credential /ui reads: a bearer token
// here is ignored, and /v1 never reads the cookie.
import type { Context, MiddlewareHandler } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import type { UiApp, UiDeps, UiEnv } from "./env.js";
import { Layout } from "./layout.js";
import { LoginPage } from "./pages/login.js";
import { DASHBOARD_SESSION_HOURS } from "../store/common/dashboard.js";

/** The session cookie's name. */
export const SESSION_COOKIE = "agent_ledger_session";

const FORM = /^(application\/x-www-form-urlencoded|multipart\/form-data)\b/i;

/** Where a login may send the browser back to: a dashboard path on this origin, nothing else. */
export function safeNext(next: unknown): string {
  if (typeof next !== "string" || next.length > 2000) return "/ui";
  if (!/^\/ui(?:[/?]|$)/.test(next) || /[\\\r\n\t]|\/\//.test(next)) return "/ui";
  return next;
}

/** HTTPS as the browser sees it: the request URL, or the proxy's X-Forwarded-Proto in front of it. */
const isHttps = (c: Context) =>
  new URL(c.req.url).protocol === "https:" || c.req.header("x-forwarded-proto")?.split(",")[0]?.trim() === "https";

function loginPage(c: Context, next: string, status: 200 | 401, error?: string) {
  return c.html(
    <Layout title="Sign in" nav={null}>
      <LoginPage next={next} error={error} />
    </Layout>,
    status,
  );
}

/** Refuses an unsafe /ui request whose body is not a form: the dashboard posts nothing else. */
export const formsOnly: MiddlewareHandler<UiEnv> = async (c, next) => {
  if (c.req.method !== "GET" && c.req.method !== "HEAD" && !FORM.test(c.req.header("content-type") ?? "")) {
    return c.text("The dashboard accepts only form posts (application/x-www-form-urlencoded).", 415);
  }
  await next();
};

/** Registers GET and POST /ui/login and POST /ui/logout on the dashboard sub-app. */
export function registerLogin(ui: UiApp, deps: UiDeps): void {
  ui.get("/login", (c) => {
    // An htmx swap whose session expired follows the 303 here: tell htmx to load the login page as a whole page.
    // A path, never the absolute URL: that would echo the request's Host header back as a redirect target.
    if (c.req.header("hx-request") === "true") {
      const { pathname, search } = new URL(c.req.url);
      c.header("HX-Redirect", `${pathname}${search}`);
    }
    return loginPage(c, safeNext(c.req.query("next")), 200);
  });

  ui.post("/login", async (c) => {
    const form = await c.req.parseBody();
    const next = safeNext(form.next);
    const token = typeof form.token === "string" ? form.token.trim() : "";
    const opened = token === "" ? null : await deps.dashboard.openSession(token, deps.clock.now());
    if (!opened) {
      const message =
        token === ""
          ? "Enter a team token: the field was empty."
          : "That token is unknown or revoked. Paste a live team token (an admin can issue one with POST /v1/admin/teams/{id}/tokens).";
      return loginPage(c, next, 401, message);
    }
    setCookie(c, SESSION_COOKIE, opened.cookie, {
      path: "/ui",
      httpOnly: true,
      sameSite: "Lax",
      secure: isHttps(c),
      maxAge: DASHBOARD_SESSION_HOURS * 3600,
    });
    return c.redirect(next, 303);
  });

  ui.post("/logout", async (c) => {
    const cookie = getCookie(c, SESSION_COOKIE);
    if (cookie !== undefined) await deps.dashboard.endSession(cookie);
    deleteCookie(c, SESSION_COOKIE, { path: "/ui", secure: isHttps(c) });
    return c.redirect("/ui/login", 303);
  });
}

/** Answers 303 to the login page unless the request carries the cookie of a live session; records the team. */
export function requireSession(deps: UiDeps): MiddlewareHandler<UiEnv> {
  return async (c, next) => {
    const cookie = getCookie(c, SESSION_COOKIE);
    const principal = cookie === undefined ? null : await deps.dashboard.findSession(cookie, deps.clock.now());
    if (!principal) {
      const url = new URL(c.req.url);
      const back = url.pathname + url.search;
      return c.redirect(back === "/ui" ? "/ui/login" : `/ui/login?next=${encodeURIComponent(back)}`, 303);
    }
    c.set("teamId", principal.teamId);
    c.set("teamName", principal.teamName);
    // Pages show a team's private data: never cached by the browser or a proxy.
    c.header("Cache-Control", "no-store");
    await next();
  };
}
