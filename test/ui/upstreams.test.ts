// The upstreams page: pins and drifts of the team's gateway upstreams with a readable diff, as HTML on both engines
// and in a real Chromium (JavaScript on and off, no console errors or CSP violations).
import { existsSync, mkdirSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { serve, type ServerType } from "@hono/node-server";
import { chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixedClock } from "../../src/clock.js";
import type { ToolDefinition } from "../../src/gateway/pins.js";
import { closeEngineApps, createEngineApp, type EngineApp, ENGINES } from "../helpers/engines.js";
import { login, page, XSS } from "./world.js";

const read: ToolDefinition = {
  name: "read_discharge",
  description: "Discharge in cfs",
  inputSchema: { type: "object", properties: { site: { type: "string" } } },
};
const changed: ToolDefinition = {
  ...read,
  description: XSS,
  inputSchema: { type: "object", properties: { site: { type: "number" } } },
};

async function world(engine: (typeof ENGINES)[number]) {
  const t = await createEngineApp(engine, { clock: fixedClock("2026-03-02T09:00:00Z") });
  const acme = await t.teamToken("acme");
  const other = await t.teamToken("other");
  const team = await t.teamId("acme");
  await t.store.upstreams!.observe(team, "usgs", "block", [read]);
  await t.store.upstreams!.observe(team, "usgs", "block", [changed, { name: "new_tool" }]);
  return { t, acme, other };
}

describe.each(ENGINES)("the upstreams page on %s", (engine) => {
  afterAll(closeEngineApps);
  let w: { t: EngineApp; acme: string; other: string };
  beforeAll(async () => {
    w = await world(engine);
  });

  it("shows each drift with a per-path diff, markup as text, the pins, and how to approve", async () => {
    const r = await page(w.t, "/ui/upstreams", await login(w.t, w.acme));
    expect(r.status).toBe(200);
    expect(r.html).toContain(`<a href="/ui/upstreams" class="on" aria-current="page">Upstreams</a>`);
    expect(r.html).toContain("1 tools pinned; 2 drifts waiting for approval");
    expect(r.html).toContain("<code>agent-ledger pins approve usgs [&lt;tool&gt;]</code>");
    expect(r.html).toContain(
      '<tr><td class="mono">description</td><td class="mono del">&quot;Discharge in cfs&quot;</td>' +
        '<td class="mono add">&quot;&lt;img src=x onerror=alert(1)&gt;&quot;</td></tr>',
    );
    expect(r.html).toContain(
      '<tr><td class="mono">inputSchema.properties.site.type</td><td class="mono del">&quot;string&quot;</td>' +
        '<td class="mono add">&quot;number&quot;</td></tr>',
    );
    expect(r.html).toContain('<span class="badge b-added">added</span>');
    expect(r.html).not.toContain("<img");
  });

  it("shows another team nothing of this team's upstreams", async () => {
    const r = await page(w.t, "/ui/upstreams", await login(w.t, w.other));
    expect(r.html).toContain("No upstream yet");
    expect(r.html).not.toContain("read_discharge");
  });
});

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const FOUND = existsSync(CHROMIUM);
const SHOTS = fileURLToPath(new URL("../../test-artifacts/screenshots/", import.meta.url));
if (!FOUND) console.warn(`!!!!! BROWSER TEST SKIPPED: no Chromium at ${CHROMIUM} !!!!!`);

describe.skipIf(!FOUND)("the upstreams page in Chromium", () => {
  let server: ServerType;
  let origin: string;
  let w: Awaited<ReturnType<typeof world>>;
  beforeAll(async () => {
    w = await world("sqlite");
    server = serve({ fetch: w.t.app.fetch, port: 0, hostname: "127.0.0.1" });
    await new Promise<void>((resolve) => server.once("listening", () => resolve()));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    mkdirSync(SHOTS, { recursive: true });
  }, 60_000);
  afterAll(() => new Promise((resolve) => server?.close(resolve)));

  for (const javaScript of [true, false]) {
    it(`renders the drifts and their diff with JavaScript ${javaScript ? "on" : "off"}, cleanly`, {
      timeout: 90_000,
    }, async () => {
      const browser = await chromium.launch({
        executablePath: CHROMIUM,
        args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
      });
      try {
        const context = await browser.newContext({
          javaScriptEnabled: javaScript,
          viewport: { width: 1366, height: 900 },
        });
        const problems: string[] = [];
        const p = await context.newPage();
        p.on("console", (m) => {
          if (m.type() === "error" || /Content[- ]Security[- ]Policy/i.test(m.text())) problems.push(m.text());
        });
        p.on("pageerror", (e) => problems.push(e.message));
        await p.goto(`${origin}/ui/login`);
        await p.fill('input[name="token"]', w.acme);
        await Promise.all([p.waitForURL(`${origin}/ui`), p.click('button[type="submit"]')]);
        await Promise.all([p.waitForURL(`${origin}/ui/upstreams`), p.click('nav a[href="/ui/upstreams"]')]);
        expect(await p.textContent("h1")).toBe("Upstreams");
        expect(await p.$$eval("table.drifts > tbody > tr", (rows) => rows.length)).toBe(2);
        expect(await p.$$eval("table.diff td.add", (cells) => cells.map((c) => c.textContent))).toEqual([
          JSON.stringify(XSS),
          '"number"',
        ]);
        expect(await p.$$("main img")).toHaveLength(0);
        await p.screenshot({ path: `${SHOTS}upstreams-${javaScript ? "js" : "nojs"}.png`, fullPage: true });
        expect(problems).toEqual([]);
      } finally {
        await browser.close();
      }
    });
  }
});
