// The dashboard in a real Chromium (playwright-core driving Debian's /usr/bin/chromium or CHROMIUM_PATH): log in,
// every page with JavaScript on and off, the sessions filter and its permalink, no console errors, no CSP
// violations, no request to another origin. Screenshots go to test-artifacts/screenshots/ (git-ignored, kept by CI).
import { existsSync, mkdirSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { serve, type ServerType } from "@hono/node-server";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { evaluate, READING_TOOL, read } from "./readings.js";
import { seedWorld, XSS, type World } from "./world.js";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const FOUND = existsSync(CHROMIUM);
// The flags proved on this machine (stack.md §12): without the background-networking ones Chromium floods the
// closed network with refused connections.
const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
const SHOTS = fileURLToPath(new URL("../../test-artifacts/screenshots/", import.meta.url));

if (!FOUND)
  console.warn(
    `!!!!! BROWSER TESTS SKIPPED: no Chromium at ${CHROMIUM} (install it with apt-get install chromium, or set CHROMIUM_PATH) !!!!!`,
  );

let w: World;
let server: ServerType;
let origin: string;
let browser: Browser;

beforeAll(async () => {
  if (!FOUND) return;
  w = await seedWorld();
  server = serve({ fetch: w.t.app.fetch, port: 0, hostname: "127.0.0.1" });
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS, headless: true });
  mkdirSync(SHOTS, { recursive: true });
}, 60_000);

afterAll(async () => {
  if (!FOUND) return;
  await browser?.close();
  await new Promise((resolve) => server?.close(resolve));
});

/** A fresh context that records console errors, CSP violations and any request leaving this origin. */
async function open(javaScript: boolean) {
  const context: BrowserContext = await browser.newContext({
    javaScriptEnabled: javaScript,
    viewport: { width: 1366, height: 900 },
  });
  const problems: string[] = [];
  context.on("request", (r) => {
    if (!r.url().startsWith(`${origin}/`)) problems.push(`request to another origin: ${r.url()}`);
  });
  const page = await context.newPage();
  page.on("console", (m) => {
    if (m.type() === "error" || /Content[- ]Security[- ]Policy/i.test(m.text()))
      problems.push(`console ${m.type()}: ${m.text()}`);
  });
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  return { context, page, problems };
}

async function logIn(page: Page, token: string) {
  await page.goto(`${origin}/ui`);
  expect(new URL(page.url()).pathname).toBe("/ui/login");
  await page.fill('input[name="token"]', token);
  await Promise.all([page.waitForURL(`${origin}/ui`), page.click('button[type="submit"]')]);
}

const listedIds = (page: Page) => page.$$eval("#sessions-list a.id", (as) => as.map((a) => a.textContent ?? ""));

describe.skipIf(!FOUND)("the dashboard in Chromium", () => {
  for (const javaScript of [true, false]) {
    const mode = javaScript ? "js" : "nojs";
    it(`logs in and opens every page with JavaScript ${javaScript ? "on" : "off"}, cleanly`, async () => {
      const { context, page, problems } = await open(javaScript);
      await logIn(page, w.acme);
      const cookies = await context.cookies();
      expect(cookies.map((c) => [c.name, c.httpOnly, c.sameSite])).toEqual([["agent_ledger_session", true, "Lax"]]);
      const pages: [string, string, string][] = [
        ["overview", "/ui", "Overview"],
        ["sessions", "/ui/sessions", "Sessions"],
        ["session", `/ui/sessions/${w.nightly}`, `Session ${w.nightly}`],
        ["session-refused", `/ui/sessions/${w.adhoc}`, `Session ${w.adhoc}`],
        ["crossings", "/ui/crossings", "Crossings"],
        ["evaluations", "/ui/evaluations", "Evaluations"],
        ["evaluation", `/ui/evaluations/${w.released}`, `Evaluation ${w.released}`],
        ["claims", "/ui/claims", "Claims"],
        ["claim", "/ui/claims/CLM-1", "Claim CLM-1"],
        ["revisions", "/ui/revisions", "Revisions"],
      ];
      for (const [name, path, heading] of pages) {
        const res = await page.goto(`${origin}${path}`);
        expect(res?.status(), path).toBe(200);
        expect((await page.textContent("h1"))?.replace(/\s+/g, " ").trim(), path).toContain(heading);
        await page.screenshot({ path: `${SHOTS}${name}-${mode}.png`, fullPage: true });
      }
      // The agent's markup stayed text: no image element was created from it.
      await page.goto(`${origin}/ui/sessions/${w.xss}`);
      expect(await page.$$("main img")).toHaveLength(0);
      expect(await page.textContent("blockquote.context")).toBe("<img src=x onerror=alert(1)>");
      expect(problems).toEqual([]);
      await context.close();
    });

    it(`filters the sessions and reloads the permalink with JavaScript ${javaScript ? "on" : "off"}`, async () => {
      const { context, page, problems } = await open(javaScript);
      await logIn(page, w.acme);
      await page.goto(`${origin}/ui/sessions`);
      expect(await listedIds(page)).toEqual([w.xss, w.adhoc, w.nightly]);
      if (javaScript) await page.evaluate("window.notReloaded = true");
      await page.fill('form.filters input[name="label"]', "run:nightly");
      await page.selectOption('form.filters select[name="code"]', "");
      await Promise.all([page.waitForURL(/label=run%3Anightly/), page.click("form.filters button")]);
      await page.waitForFunction('document.querySelectorAll("#sessions-list a.id").length === 1');
      expect(await listedIds(page)).toEqual([w.nightly]);
      expect(new URL(page.url()).search).toBe("?label=run%3Anightly");
      expect(await page.getAttribute('a[href^="/ui/sessions.csv"]', "href")).toBe(
        "/ui/sessions.csv?label=run%3Anightly",
      );
      // With htmx the table was swapped in place: the page (and its window) survived.
      if (javaScript) expect(await page.evaluate("window.notReloaded === true")).toBe(true);
      await page.screenshot({ path: `${SHOTS}sessions-filtered-${mode}.png`, fullPage: true });
      await page.reload();
      expect(await listedIds(page)).toEqual([w.nightly]);
      expect(await page.inputValue('form.filters input[name="label"]')).toBe("run:nightly");
      expect(problems).toEqual([]);
      await context.close();
    });
  }

  it("filters the crossings by a code chip in place, and the permalink reloads to the same list", async () => {
    const { context, page, problems } = await open(true);
    await logIn(page, w.acme);
    await page.goto(`${origin}/ui/crossings`);
    await page.evaluate("window.notReloaded = true");
    await Promise.all([
      page.waitForURL(/code=unconverted_carry_over/),
      page.click("#crossings-list .chipbar a.chip.code"),
    ]);
    await page.waitForSelector("#crossings-list a.chip.code.on");
    expect(await page.$$eval("#crossings-list tbody tr", (rows) => rows.length)).toBe(1);
    expect(await page.evaluate("window.notReloaded === true")).toBe(true);
    await page.reload();
    expect(await page.$$eval("#crossings-list tbody tr", (rows) => rows.length)).toBe(1);
    expect(await page.textContent("#crossings-list a.chip.code.on")).toContain("unconverted_carry_over");
    await page.screenshot({ path: `${SHOTS}crossings-filtered-js.png`, fullPage: true });
    expect(problems).toEqual([]);
    await context.close();
  });

  it("shows a detected revision and the evaluation it affects, linked, with a source written as markup as text", async () => {
    // A team of its own, so the other tests' lists stay as seeded.
    const gauge = await w.t.teamToken("gauge");
    expect((await w.t.call("PUT", "/v1/tools/read_discharge", { token: gauge, body: READING_TOOL })).status).toBe(201);
    const first = await read(w.t, gauge, 412000, "P", XSS);
    const report = await evaluate(w.t, gauge, "flood", `ledger:crossings/${first.crossing}`, "412000 cfs");
    await read(w.t, gauge, 405000, "A", XSS);
    const { context, page, problems } = await open(true);
    await logIn(page, gauge);
    await page.goto(`${origin}/ui/revisions`);
    expect(await page.$$eval("#revisions-list tbody tr", (rows) => rows.length)).toBe(1);
    expect(await page.textContent("#revisions-list tbody td.mono")).toBe(XSS);
    expect(await page.$$("main img")).toHaveLength(0);
    await page.screenshot({ path: `${SHOTS}revisions-detected-js.png`, fullPage: true });
    await Promise.all([
      page.waitForURL(`${origin}/ui/evaluations/${report}`),
      page.click(`a[href="/ui/evaluations/${report}"]`),
    ]);
    expect(await page.textContent("h1")).toContain(report);
    expect(problems).toEqual([]);
    await context.close();
  });

  it("sends a wrong token back to the form without a cookie", async () => {
    const { context, page, problems } = await open(true);
    await page.goto(`${origin}/ui/login`);
    await page.fill('input[name="token"]', "al_wrong");
    await page.click('button[type="submit"]');
    await page.waitForSelector("p.error");
    expect(await page.textContent("p.error")).toContain("That token is unknown or revoked.");
    expect(await context.cookies()).toEqual([]);
    await page.screenshot({ path: `${SHOTS}login-refused.png`, fullPage: true });
    // The 401 itself is logged by Chromium as a failed resource load; nothing else may be.
    expect(problems.filter((p) => !p.includes("401"))).toEqual([]);
    await context.close();
  });
});
