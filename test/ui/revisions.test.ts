// The revisions page and the evaluation page's resolved sources, over readings written through the real call path.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixedClock } from "../../src/clock.js";
import { closeEngineApps, createEngineApp, type EngineApp, ENGINES } from "../helpers/engines.js";
import { evaluate, MARCH, READING_TOOL, read, SOURCE } from "./readings.js";
import { login, page, XSS } from "./world.js";

describe.each(ENGINES)("on %s", (engine) => {
  afterAll(closeEngineApps);

  const DAY = 86_400_000;

  let t: EngineApp;
  let acme: string;
  let other: string;
  let march: { session: string; crossing: number };
  let june: { session: string; crossing: number };
  let flood: string;
  let cited: string;

  beforeAll(async () => {
    const clock = fixedClock("2026-03-15T09:00:00Z");
    t = await createEngineApp(engine, { clock });
    acme = await t.teamToken("acme");
    other = await t.teamToken("other");
    for (const token of [acme, other]) {
      const r = await t.call("PUT", "/v1/tools/read_discharge", { token, body: READING_TOOL });
      expect(r.status).toBeLessThan(300);
    }
    march = await read(t, acme, 412000, "P");
    flood = await evaluate(t, acme, "flood", `ledger:sessions/${march.session}`, "412000 cfs");
    cited = await evaluate(t, acme, "flood-cited", `ledger:crossings/${march.crossing}`, "11666.6 m^3/s");
    await read(t, acme, 100, "P", XSS);
    await read(t, other, 9000, "P", "usgs:other:00060");
    clock.advance(80 * DAY);
    // The same instant written in UTC: the same reading, re-read with another value and quality.
    june = await read(t, acme, 405000, "A", SOURCE, "2026-03-14T15:15:00Z");
    await read(t, acme, 120, "A", XSS);
    await read(t, other, 9100, "A", "usgs:other:00060");
  });

  describe("the revisions page", () => {
    it("shows a detected revision with before and after, when, why, by what, and the evaluations it affects", async () => {
      const cookie = await login(t, acme);
      const r = await page(t, `/ui/revisions?source=${encodeURIComponent(SOURCE)}`, cookie);
      expect(r.status).toBe(200);
      const rows = r.html.split("<tbody>")[1]!.split("</tbody>")[0]!.split("<tr").slice(1);
      expect(rows).toHaveLength(1);
      const row = rows[0]!;
      expect(row).toContain(' class="hot"');
      expect(row).toContain("2026-06-03 09:00");
      expect(row).toContain("2026-03-14T15:15:00Z");
      expect(row).toContain('<span class="badge b-detected">detected</span>');
      expect(row).toContain(
        `href="/ui/sessions/${march.session}#crossing-${march.crossing}">412000 ft^3/s · provisional</a>`,
      );
      expect(row).toContain(
        `href="/ui/sessions/${june.session}#crossing-${june.crossing}">405000 ft^3/s · approved</a>`,
      );
      expect(row).toContain(
        `<td class="repair">read_discharge read ${SOURCE} observed 2026-03-14T15:15:00Z again and returned 405000 ft^3/s (approved), ` +
          `where crossing ${march.crossing} holds 412000 ft^3/s (provisional)</td><td>read_discharge</td>`,
      );
      expect(row).toContain(`<a href="/ui/evaluations/${flood}">flood</a>`);
      expect(row).toContain(`<a href="/ui/evaluations/${cited}">flood-cited</a>`);
    });

    it("lists every revision of the team newest first, and none of another team's", async () => {
      const r = await page(t, "/ui/revisions", await login(t, acme));
      expect(r.html.split("<tbody>")[1]!.split("</tbody>")[0]!.split("<tr").slice(1)).toHaveLength(2);
      expect(r.html).not.toContain("usgs:other:00060");
      const theirs = await page(t, "/ui/revisions", await login(t, other));
      expect(theirs.html).toContain("usgs:other:00060");
      expect(theirs.html).not.toContain(`>${SOURCE}</a>`);
      expect(theirs.html).not.toContain("&lt;img");
      expect(theirs.html).not.toContain(flood);
    });

    it("renders a source written as markup as text", async () => {
      const r = await page(t, "/ui/revisions", await login(t, acme));
      expect(r.html).not.toContain(XSS);
      expect(r.html).toContain("&lt;img src=x onerror=alert(1)&gt;");
    });

    it("filters by detection date, and refuses a date it cannot read with 400", async () => {
      const cookie = await login(t, acme);
      expect((await page(t, "/ui/revisions?since=2026-06-04", cookie)).html).toContain(
        "No revision matches this filter.",
      );
      const bad = await page(t, "/ui/revisions?since=June", cookie);
      expect(bad.status).toBe(400);
      expect(bad.html).toContain("since must be a date such as 2026-11-30");
    });
  });

  describe("the evaluation page's sources", () => {
    it("shows the crossing a ledger:crossings locator resolved to, with its tool, value, unit, quality and time", async () => {
      const r = await page(t, `/ui/evaluations/${cited}`, await login(t, acme));
      expect(r.status).toBe(200);
      const sources = r.html.split("No fact of this evaluation")[0]!;
      expect(sources).toContain(`<td class="mono">ledger:crossings/${march.crossing}</td>`);
      expect(sources).toContain('<span class="badge b-resolved">resolved</span>');
      expect(sources).toContain(
        `href="/ui/sessions/${march.session}#crossing-${march.crossing}">crossing ${march.crossing} (call #1)</a>`,
      );
      expect(sources).toContain(
        '<td class="mono">read_discharge</td><td class="num">412000</td><td class="mono">ft^3/s</td>',
      );
      expect(sources).toContain("<td>provisional</td>");
      expect(sources).toContain(MARCH);
    });
  });
});
