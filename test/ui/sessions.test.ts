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

  const ids = (html: string) => [...html.matchAll(/<a class="id" href="\/ui\/sessions\/([^"]+)">/g)].map((m) => m[1]);

  describe("the sessions page", () => {
    it("lists the team's sessions newest first and none of another team's", async () => {
      const r = await page(w.t, "/ui/sessions", cookie);
      expect(r.status).toBe(200);
      expect(ids(r.html)).toEqual([w.xss, w.adhoc, w.nightly]);
      expect(r.html).not.toContain(w.foreignSession);
    });

    it("filters by label, tool, violation code and time, each filter a permalink", async () => {
      expect(ids((await page(w.t, "/ui/sessions?label=run:nightly", cookie)).html)).toEqual([w.nightly]);
      expect(ids((await page(w.t, "/ui/sessions?label=run:nightly&label=model:m1", cookie)).html)).toEqual([w.nightly]);
      expect(ids((await page(w.t, "/ui/sessions?tool=runoff_depth", cookie)).html)).toEqual([w.adhoc, w.nightly]);
      expect(ids((await page(w.t, "/ui/sessions?code=unconverted_carry_over", cookie)).html)).toEqual([w.adhoc]);
      expect(ids((await page(w.t, "/ui/sessions?until=2026-11-21", cookie)).html)).toEqual([w.nightly]);
      expect(ids((await page(w.t, "/ui/sessions?since=2026-11-21&tool=runoff_depth", cookie)).html)).toEqual([w.adhoc]);
    });

    it("keeps the filter in the form fields and in the export links", async () => {
      const r = await page(w.t, "/ui/sessions?label=run:nightly&code=unconverted_carry_over", cookie);
      expect(r.html).toContain('<input name="label" value="run:nightly" placeholder="key:value"/>');
      expect(r.html).toContain('<option value="unconverted_carry_over" selected="">unconverted_carry_over</option>');
      expect(r.html).toContain('href="/ui/sessions.csv?label=run%3Anightly&amp;code=unconverted_carry_over"');
    });

    it("redirects a form's empty fields to the clean permalink", async () => {
      const r = await page(w.t, "/ui/sessions?label=&tool=runoff_depth&code=&since=&until=", cookie);
      expect(r.status).toBe(303);
      expect(r.headers.get("location")).toBe("/ui/sessions?tool=runoff_depth");
    });

    it("links each label and code to the list filtered by it", async () => {
      const r = await page(w.t, "/ui/sessions", cookie);
      expect(r.html).toContain(
        '<a class="chip label" href="/ui/sessions?label=run%3Anightly" hx-get="/ui/sessions?label=run%3Anightly" hx-target="#sessions-list" hx-select="#sessions-list" hx-push-url="true">' +
          '<span class="k">run</span>nightly</a>',
      );
      expect(r.html).toContain(
        '<a class="chip code" href="/ui/sessions?code=unconverted_carry_over" hx-get="/ui/sessions?code=unconverted_carry_over" hx-target="#sessions-list" hx-select="#sessions-list" hx-push-url="true">' +
          'unconverted_carry_over<span class="n">1</span></a>',
      );
    });

    it("pages with a keyset cursor and a Next link that keeps the filter", async () => {
      const first = await page(w.t, "/ui/sessions?tool=read_discharge", cookie);
      expect(ids(first.html)).toEqual([w.adhoc, w.nightly]);
      // Pages are 50 rows: 51 sessions make a second page of one.
      for (let i = 0; i < 51; i += 1)
        await w.t.call("POST", "/v1/sessions", { token: w.acme, body: { labels: { bulk: "yes" } } });
      const p1 = await page(w.t, "/ui/sessions?label=bulk:yes", cookie);
      expect(ids(p1.html)).toHaveLength(50);
      const next = /<a href="(\/ui\/sessions\?label=bulk%3Ayes&amp;cursor=[^"]+)" rel="next"/.exec(p1.html);
      expect(next).not.toBeNull();
      const p2 = await page(w.t, next![1]!.replace(/&amp;/g, "&"), cookie);
      expect(ids(p2.html)).toHaveLength(1);
      expect(p2.html).not.toContain('rel="next"');
      expect(p2.html).toContain('<a href="/ui/sessions?label=bulk%3Ayes" hx-get="/ui/sessions?label=bulk%3Ayes"');
    });

    it("answers 400 naming the field for a malformed date, label or cursor", async () => {
      const d = await page(w.t, "/ui/sessions?since=yesterday", cookie);
      expect(d.status).toBe(400);
      expect(d.html).toContain("since must be a date such as 2026-11-30");
      expect((await page(w.t, "/ui/sessions?label=nocolon", cookie)).html).toContain("label must be key:value");
      expect((await page(w.t, "/ui/sessions?cursor=zzz", cookie)).status).toBe(400);
      expect((await page(w.t, "/ui/sessions?code=made_up", cookie)).html).toContain("code must be a violation code");
    });

    it("exports the current filter as CSV and as JSON Lines", async () => {
      const csv = await page(w.t, "/ui/sessions.csv?label=run:nightly", cookie);
      expect(csv.headers.get("content-type")).toBe("text/csv; charset=utf-8");
      const lines = csv.html.trimEnd().split("\r\n");
      expect(lines[0]).toBe("id,created_at,enforcement,calls,violations,would_block,labels,context");
      expect(lines.slice(1)).toEqual([
        `${w.nightly},2026-11-20T10:00:00.000Z,enforce,2,0,0,run:nightly model:m1,Runoff at Baton Rouge`,
      ]);
      const jsonl = await page(w.t, "/ui/sessions.jsonl?code=unconverted_carry_over", cookie);
      expect(
        jsonl.html
          .trimEnd()
          .split("\n")
          .map((l) => JSON.parse(l)),
      ).toEqual([
        {
          id: w.adhoc,
          context: "Ad hoc check",
          enforcement: "enforce",
          labels: { run: "adhoc" },
          calls: 2,
          violations: 1,
          would_block: 1,
          created_at: "2026-11-21T10:00:00.000Z",
        },
      ]);
    });

    it("defuses agent-written spreadsheet formulas in the CSV", async () => {
      await w.t.call("POST", "/v1/sessions", {
        token: w.acme,
        body: { context: "=HYPERLINK(1)", labels: { csv: "f" } },
      });
      const csv = await page(w.t, "/ui/sessions.csv?label=csv:f", cookie);
      expect(csv.html).toContain(",csv:f,'=HYPERLINK(1)\r\n");
    });

    it("renders agent-written markup in a context and a label as text", async () => {
      const r = await page(w.t, "/ui/sessions?tool=undeclared_probe", cookie);
      expect(ids(r.html)).toEqual([w.xss]);
      expect(r.html).not.toContain(XSS);
      expect(r.html).toContain("&lt;img src=x onerror=alert(1)&gt;");
    });
  });

  describe("a session's page", () => {
    it("shows each call in order with every crossing: value, unit, outcome and code", async () => {
      const r = await page(w.t, `/ui/sessions/${w.nightly}`, cookie);
      expect(r.status).toBe(200);
      expect(r.html.indexOf('id="call-1"')).toBeLessThan(r.html.indexOf('id="call-2"'));
      expect(r.html).toContain('<td class="num">35.3961</td><td class="mono">m^3/s</td>');
      expect(r.html).toContain('<span class="badge b-converted">converted</span>');
    });

    it("shows a refused crossing with its code and repair text", async () => {
      const r = await page(w.t, `/ui/sessions/${w.adhoc}`, cookie);
      expect(r.html).toContain(
        '<a class="chip code" href="/ui/crossings?code=unconverted_carry_over">unconverted_carry_over</a>',
      );
      expect(r.html).toContain("[unconverted_carry_over] for `discharge` received the bare number 1250");
    });

    it("marks every number of the audited answer by status and links a sourced one to its crossing", async () => {
      const r = await page(w.t, `/ui/sessions/${w.nightly}`, cookie);
      const sourced = /<a class="num-mark st-sourced" href="#crossing-(\d+)" title="[^"]*">1250 cfs<\/a>/.exec(r.html);
      expect(sourced).not.toBeNull();
      expect(r.html).toContain(`<tr id="crossing-${sourced![1]}">`);
      expect(r.html).toMatch(/<mark class="num-mark st-unsourced" title="[^"]*">77<\/mark>/);
    });

    it("renders a crossing whose unit is markup as text", async () => {
      const r = await page(w.t, `/ui/sessions/${w.xss}`, cookie);
      expect(r.status).toBe(200);
      expect(r.html).not.toContain(XSS);
      expect(r.html).toContain("&lt;img src=x onerror=alert(1)&gt;");
    });

    it("answers 404 for another team's session and an unknown id", async () => {
      const foreign = await page(w.t, `/ui/sessions/${w.foreignSession}`, cookie);
      expect(foreign.status).toBe(404);
      expect(foreign.html).not.toContain("other team's work");
      expect((await page(w.t, "/ui/sessions/01NOPE", cookie)).status).toBe(404);
    });
  });
});
