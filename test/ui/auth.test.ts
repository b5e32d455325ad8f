import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { login, page, SAME_ORIGIN, seedWorld, type World } from "./world.js";
import { closeEngineApps, ENGINES } from "../helpers/engines.js";
import { hashToken } from "../../src/store/common/tokens.js";

describe.each(ENGINES)("on %s", (engine) => {
  afterAll(closeEngineApps);

  let w: World;
  beforeAll(async () => {
    w = await seedWorld(engine);
  });

  const form = (body: Record<string, string>, headers: Record<string, string> = SAME_ORIGIN) => ({
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams(body).toString(),
  });

  const sessionRows = () => w.t.count("dashboard_sessions");

  describe("dashboard login", () => {
    it("redirects GET / to /ui", async () => {
      const res = await w.t.app.request("/");
      expect(res.status).toBe(302);
      expect(res.headers.get("location")).toBe("/ui");
    });

    it("answers 303 to the login page, showing no data, for every page without a cookie", async () => {
      for (const path of [
        "/ui",
        "/ui/sessions",
        `/ui/sessions/${w.nightly}`,
        "/ui/crossings",
        "/ui/evaluations",
        "/ui/claims",
        "/ui/revisions",
        "/ui/nope",
      ]) {
        const r = await page(w.t, path, null);
        expect(r.status, path).toBe(303);
        expect(r.html, path).toBe("");
      }
      expect((await page(w.t, "/ui/sessions?label=run:nightly", null)).headers.get("location")).toBe(
        "/ui/login?next=%2Fui%2Fsessions%3Flabel%3Drun%3Anightly",
      );
      expect((await page(w.t, "/ui", null)).headers.get("location")).toBe("/ui/login");
    });

    it("tells htmx to load the login page by its path, never echoing the Host header", async () => {
      const r = await w.t.app.request("http://evil.example/ui/login?next=%2Fui%2Fclaims", {
        headers: { "hx-request": "true", host: "evil.example" },
      });
      expect(r.status).toBe(200);
      expect(r.headers.get("hx-redirect")).toBe("/ui/login?next=%2Fui%2Fclaims");
    });

    it("shows a form with one token field", async () => {
      const r = await page(w.t, "/ui/login", null);
      expect(r.status).toBe(200);
      expect(r.html).toContain('<form method="post" action="/ui/login">');
      expect(r.html.match(/<input [^>]*name="token"/g)).toHaveLength(1);
    });

    it("exchanges a team token for an HttpOnly SameSite cookie whose value is stored only as its SHA-256", async () => {
      const res = await w.t.app.request("/ui/login", form({ token: w.acme, next: "/ui/sessions?label=run:nightly" }));
      expect(res.status).toBe(303);
      expect(res.headers.get("location")).toBe("/ui/sessions?label=run:nightly");
      const set = res.headers.get("set-cookie")!;
      expect(set).toMatch(/^agent_ledger_session=[A-Za-z0-9_-]{43}; Max-Age=43200; Path=\/ui; HttpOnly; SameSite=Lax$/);
      const value = set.split(";")[0]!.split("=")[1]!;
      expect(set).not.toContain(w.acme);
      const stored = await w.t.rows<{ id: string; expires_at: string }>(
        "SELECT id, expires_at FROM dashboard_sessions WHERE id = ?",
        hashToken(value),
      );
      expect(stored.map((r) => r.expires_at)).toEqual([
        new Date(w.clock.now().getTime() + 12 * 3_600_000).toISOString(),
      ]);
      expect(await w.t.rows("SELECT id FROM dashboard_sessions WHERE id = ?", value)).toEqual([]);
    });

    it("refuses a wrong token with 401 and the form again, and sets and stores nothing", async () => {
      const before = await sessionRows();
      const res = await w.t.app.request("/ui/login", form({ token: "al_not-a-real-token" }));
      expect(res.status).toBe(401);
      expect(res.headers.get("set-cookie")).toBeNull();
      const html = await res.text();
      expect(html).toContain("That token is unknown or revoked.");
      expect(html).toContain('name="token"');
      expect(await sessionRows()).toBe(before);
    });

    it("never sends the browser off-site after login: next is kept to /ui paths", async () => {
      for (const next of ["https://evil.example/", "//evil.example/ui", "/v1/sessions", "/ui\\@evil"]) {
        const res = await w.t.app.request("/ui/login", form({ token: w.acme, next }));
        expect(res.headers.get("location"), next).toBe("/ui");
      }
    });

    it("refuses a cross-origin login or logout post with 403 and sets nothing", async () => {
      const res = await w.t.app.request("/ui/login", form({ token: w.acme }, { origin: "https://evil.example" }));
      expect(res.status).toBe(403);
      expect(res.headers.get("set-cookie")).toBeNull();
      expect(await res.text()).toContain("Refused: posted from another site");
      const cookie = await login(w.t, w.acme);
      const out = await w.t.app.request("/ui/logout", {
        ...form({}, { origin: "https://evil.example", "sec-fetch-site": "cross-site" }),
        headers: { cookie, origin: "https://evil.example", "content-type": "application/x-www-form-urlencoded" },
      });
      expect(out.status).toBe(403);
      expect((await page(w.t, "/ui/sessions", cookie)).status).toBe(200);
    });

    it("refuses an unsafe /ui request that is not a form", async () => {
      const res = await w.t.app.request("/ui/login", {
        method: "POST",
        headers: { "content-type": "application/json", ...SAME_ORIGIN },
        body: JSON.stringify({ token: w.acme }),
      });
      expect(res.status).toBe(415);
      expect(res.headers.get("set-cookie")).toBeNull();
    });

    it("ends the session on logout: the same cookie then answers 303 to login", async () => {
      const cookie = await login(w.t, w.acme);
      expect((await page(w.t, "/ui/sessions", cookie)).status).toBe(200);
      const out = await w.t.app.request("/ui/logout", { ...form({}), headers: { ...form({}).headers, cookie } });
      expect(out.status).toBe(303);
      expect(out.headers.get("location")).toBe("/ui/login");
      expect(out.headers.get("set-cookie")).toMatch(/^agent_ledger_session=; Max-Age=0; Path=\/ui/);
      expect((await page(w.t, "/ui/sessions", cookie)).status).toBe(303);
    });

    it("ends every dashboard session of a token when the token is revoked", async () => {
      const issued = (
        await w.t.call("POST", `/v1/admin/teams/${await w.t.teamId("acme")}/tokens`, { body: { name: "lead" } })
      ).body as {
        id: string;
        token: string;
      };
      const cookie = await login(w.t, issued.token);
      expect((await page(w.t, "/ui", cookie)).status).toBe(200);
      expect((await w.t.call("DELETE", `/v1/admin/tokens/${issued.id}`)).status).toBe(204);
      expect((await page(w.t, "/ui", cookie)).status).toBe(303);
    });

    it("ends a session at its expiry", async () => {
      const cookie = await login(w.t, w.acme);
      w.clock.advance(12 * 3_600_000);
      expect((await page(w.t, "/ui", cookie)).status).toBe(303);
    });

    it("never accepts a bearer token on /ui", async () => {
      const r = await page(w.t, "/ui/sessions", null, { authorization: `Bearer ${w.acme}` });
      expect(r.status).toBe(303);
      expect(r.html).toBe("");
    });

    it("never accepts the dashboard cookie on /v1", async () => {
      const cookie = await login(w.t, w.acme);
      const res = await w.t.app.request("/v1/sessions", { headers: { cookie } });
      expect(res.status).toBe(401);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe("unauthenticated");
    });

    it("sends a strict Content-Security-Policy and no-store on every page", async () => {
      const cookie = await login(w.t, w.acme);
      const r = await page(w.t, "/ui/sessions", cookie);
      expect(r.headers.get("content-security-policy")).toBe(
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
      );
      expect(r.headers.get("cache-control")).toBe("no-store");
      expect(r.headers.get("x-frame-options")).toBe("SAMEORIGIN");
      expect((await page(w.t, "/ui/login", null)).headers.get("content-security-policy")).toContain(
        "script-src 'self'",
      );
    });
  });
});
