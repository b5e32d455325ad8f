import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { login, page, seedWorld, XSS, type World } from "./world.js";
import { closeEngineApps, ENGINES } from "../helpers/engines.js";

describe.each(ENGINES)("on %s", (engine) => {
  afterAll(closeEngineApps);

  let w: World;
  let cookie: string;
  beforeAll(async () => {
    w = await seedWorld(engine);
    cookie = await login(w.t, w.acme);
  });

  describe("the overview", () => {
    it("counts the window's sessions, calls, refusals, unsourced numbers and blocked evaluations", async () => {
      const r = await page(w.t, "/ui", cookie);
      expect(r.status).toBe(200);
      const stat = (label: string) =>
        new RegExp(`<div class="v">([^<]+)</div><div class="l">${label}</div>`).exec(r.html)?.[1];
      expect(stat("sessions")).toBe("3");
      expect(stat("tool calls")).toBe("5");
      expect(stat("refusal rate")).toBe("20.0%");
      expect(stat("unsourced numbers")).toBe("33.3%");
      expect(stat("blocked evaluation")).toBe("1");
      expect(r.html).toContain("2026-10-23 to 2026-11-22 (UTC, end exclusive)");
    });

    it("draws calls per day as converted, passed and refused bars with exact tooltips", async () => {
      const r = await page(w.t, "/ui?days=7", cookie);
      expect(r.html).toContain("<title>2026-11-20: 1 converted</title>");
      expect(r.html).toContain("<title>2026-11-20: 1 passed</title>");
      expect(r.html).toContain("<title>2026-11-21: 1 refused</title>");
      expect(r.html).toContain("<title>2026-11-21: 2 passed</title>");
      expect(r.html).toContain("<title>2026-11-21: 1 unconverted_carry_over</title>");
      expect(r.html).toContain("<title>2026-11-21: 1 released</title>");
      expect(r.html).toContain("<title>2026-11-21: 1 blocked</title>");
    });

    it("refuses a window it does not offer with 400", async () => {
      const r = await page(w.t, "/ui?days=365", cookie);
      expect(r.status).toBe(400);
      expect(r.html).toContain("days must be one of 7, 30, 90, received &#39;365&#39;");
    });
  });

  describe("the crossings page", () => {
    it("shows each violation code as a chip with its count, linking to the filtered list", async () => {
      const r = await page(w.t, "/ui/crossings", cookie);
      expect(r.status).toBe(200);
      expect(r.html).toContain(
        '<a class="chip code" href="/ui/crossings?code=unconverted_carry_over" hx-get="/ui/crossings?code=unconverted_carry_over" hx-target="#crossings-list" hx-select="#crossings-list" hx-push-url="true">' +
          'unconverted_carry_over<span class="n">1</span></a>',
      );
    });

    it("filters the list by code and by tool", async () => {
      const byCode = await page(w.t, "/ui/crossings?code=unconverted_carry_over", cookie);
      expect(byCode.html.match(/<tr class="hot">/g)).toHaveLength(1);
      expect(byCode.html).toContain('<a class="chip code on" href="/ui/crossings?code=unconverted_carry_over" hx-get=');
      const byTool = await page(w.t, "/ui/crossings?tool=read_discharge", cookie);
      // Two sessions read a discharge: each call's station and its return.
      expect(byTool.html.match(/>read_discharge<\/a><\/td>/g)).toHaveLength(4);
      expect(byTool.html).not.toContain(">runoff_depth</a></td>");
    });

    it("renders a unit written as markup as text", async () => {
      const r = await page(w.t, "/ui/crossings?tool=undeclared_probe", cookie);
      expect(r.html).not.toContain(XSS);
      expect(r.html).toContain("&lt;img src=x onerror=alert(1)&gt;");
    });
  });

  describe("the evaluations pages", () => {
    it("shows the runs of each task against the eleven gates", async () => {
      const r = await page(w.t, "/ui/evaluations", cookie);
      expect(r.status).toBe(200);
      expect(r.html.match(/<th class="gate">/g)).toHaveLength(11);
      expect(r.html).toContain(`href="/ui/evaluations/${w.released}"`);
      expect(r.html).toContain(`href="/ui/evaluations/${w.blocked}"`);
      expect(r.html).not.toContain(w.foreignEvaluation);
      expect(r.html).toContain('<td class="cell g-blocked" title="contract: blocked">BLOCK</td>');
    });

    it("filters by status, the filter in the URL", async () => {
      const r = await page(w.t, "/ui/evaluations?status=released", cookie);
      expect(r.html).toContain(w.released);
      expect(r.html).not.toContain(w.blocked);
    });

    it("shows one evaluation with each gate's findings", async () => {
      const r = await page(w.t, `/ui/evaluations/${w.blocked}`, cookie);
      expect(r.status).toBe(200);
      expect(r.html).toContain('<span class="badge b-blocked">blocked</span>');
      expect(r.html).toContain("blocked by contract");
      expect(r.html.match(/<section class="gatecard">/g)).toHaveLength(11);
    });

    it("answers 404 for another team's evaluation", async () => {
      expect((await page(w.t, `/ui/evaluations/${w.foreignEvaluation}`, cookie)).status).toBe(404);
    });
  });

  describe("the claims pages", () => {
    it("shows the ledger with demotions and watch patterns, and a claim written as markup as text", async () => {
      const r = await page(w.t, "/ui/claims", cookie);
      expect(r.status).toBe(200);
      expect(r.html).toContain('<td class="repair">gage re-surveyed (review)</td><td class="mono">17\\.1 ft</td>');
      expect(r.html).not.toContain(XSS);
      expect(r.html).toContain("<td>&lt;img src=x onerror=alert(1)&gt;</td>");
    });

    it("filters by status and search text", async () => {
      const demoted = await page(w.t, "/ui/claims?status=demoted", cookie);
      expect(demoted.html).toContain('href="/ui/claims/CLM-1"');
      expect(demoted.html).not.toContain('href="/ui/claims/CLM-X"');
      const q = await page(w.t, "/ui/claims?q=crest", cookie);
      expect(q.html).toContain('href="/ui/claims/CLM-1"');
      expect(q.html).not.toContain('href="/ui/claims/CLM-X"');
    });

    it("shows a claim's events and its key's values across released runs as a strip plot", async () => {
      const r = await page(w.t, "/ui/claims/CLM-1", cookie);
      expect(r.status).toBe(200);
      expect(r.html).toContain("<td>demoted</td>");
      expect(r.html).toMatch(/<circle class="dot" cx="[\d.]+" cy="30" r="6"><title>crest · 2026-11-21 10:00:00 · /);
    });

    it("shows the supersedes chain both ways", async () => {
      const one = await page(w.t, "/ui/claims/CLM-1", cookie);
      expect(one.html).toMatch(
        /<span class="arrow">→<\/span><span><a class="mono" href="\/ui\/claims\/CLM-2">CLM-2<\/a>/,
      );
      const two = await page(w.t, "/ui/claims/CLM-2", cookie);
      expect(two.html).toContain('<p class="chain"><span><a class="mono" href="/ui/claims/CLM-1">CLM-1</a>');
      const list = await page(w.t, "/ui/claims", cookie);
      expect(list.html).toContain('<td><a class="mono" href="/ui/claims/CLM-1">CLM-1</a></td><td></td>');
    });

    it("answers 404 for a claim the team does not have", async () => {
      const other = await login(w.t, w.other);
      expect((await page(w.t, "/ui/claims/CLM-1", other)).status).toBe(404);
    });
  });

  describe("the revisions page", () => {
    it("answers for a logged-in team", async () => {
      const r = await page(w.t, "/ui/revisions", cookie);
      expect(r.status).toBe(200);
      expect(r.html).toContain("<h1>Revisions</h1>");
    });
  });

  describe("htmx", () => {
    it("is served from this origin at a content-hashed path, cacheable, and linked by every page", async () => {
      const r = await page(w.t, "/ui/sessions", cookie);
      const src = /<script src="(\/ui\/assets\/htmx\.[0-9a-f]{10}\.min\.js)" defer=""><\/script>/.exec(r.html)?.[1];
      expect(src).toBeDefined();
      const js = await page(w.t, src!, null);
      expect(js.status).toBe(200);
      expect(js.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
      expect(js.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
      expect(js.html).toContain("4.0.1");
    });

    it("marks the sessions filter to swap only the list and push the URL", async () => {
      const r = await page(w.t, "/ui/sessions", cookie);
      expect(r.html).toContain(
        'hx-get="/ui/sessions" hx-target="#sessions-list" hx-select="#sessions-list" hx-push-url="true"',
      );
    });
  });
});
