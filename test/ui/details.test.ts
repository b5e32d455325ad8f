// The dashboard read closely, in a real Chromium at 1400 and 800 px: a call refused as a whole shows its repair, empty
// datum/zone/quality columns are left out, counts agree with their nouns, a watch pattern reads as written, the claim
// page's strip plot is legible with its axis title clear of the ticks, nothing spills out of a call card, the header
// keeps one line, and /docs shows "Bearer <token>". Screenshots go to test-artifacts/screenshots/details-*.png.
import { existsSync, mkdirSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { serve, type ServerType } from "@hono/node-server";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../helpers/db.js";
import { stageResult } from "../helpers/gated.js";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const FOUND = existsSync(CHROMIUM);
const ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run"];
const SHOTS = fileURLToPath(new URL("../../test-artifacts/screenshots/", import.meta.url));
if (!FOUND) console.warn(`!!!!! BROWSER TESTS SKIPPED: no Chromium at ${CHROMIUM} !!!!!`);

let t: TestApp;
let server: ServerType;
let origin: string;
let browser: Browser;
let session = "";
let blocked = "";

async function post(path: string, body: unknown): Promise<Record<string, unknown>> {
  const r = await t.call("POST", path, { body });
  if (r.status >= 300) throw new Error(`${path} answered ${r.status}: ${JSON.stringify(r.body)}`);
  return r.body as Record<string, unknown>;
}

beforeAll(async () => {
  if (!FOUND) return;
  t = createTestApp();
  await t.call("PUT", "/v1/tools/read_discharge", { body: { params: { station: {} }, returns: { unit: "cfs" } } });
  session = (await post("/v1/sessions", { context: "Peak at Baton Rouge" })).id as string;
  // A call refused as a whole (an argument the tool does not take), then one that passes with a bare number.
  await post(`/v1/sessions/${session}/calls`, { tool: "read_discharge", args: { station: "07374000", stn: 1 } });
  const ok = await post(`/v1/sessions/${session}/calls`, { tool: "read_discharge", args: { station: "07374000" } });
  await post(`/v1/sessions/${session}/calls/${ok.call_id as string}/result`, { result: 1250 });
  await post("/v1/claims", { id: "CLM-1", text: "Crest stage is 17.1 ft", key: "Crest Stage", status: "live" });
  await post("/v1/claims/CLM-1/demote", { reason: "gage re-surveyed", demoted_by: "review", watch: "17\\.1 ft" });
  for (const [task, v] of [
    ["crest", "17.2 ft"],
    ["crest", "17.3 ft"],
    ["crest-east", "950 ft"],
  ] as const)
    await post("/v1/evaluations", { task: { id: task }, result: stageResult(v) });
  blocked = (
    await post("/v1/evaluations", {
      task: { id: "crest" },
      result: stageResult("17.1 ft", { output: "The crest was 17.1 ft." }),
    })
  ).id as string;
  server = serve({ fetch: t.app.fetch, port: 0, hostname: "127.0.0.1" });
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS, headless: true });
  mkdirSync(SHOTS, { recursive: true });
}, 120_000);

afterAll(async () => {
  if (!FOUND) return;
  await browser?.close();
  await new Promise((resolve) => server?.close(resolve));
});

async function loggedIn(width: number): Promise<Page> {
  const context = await browser.newContext({ viewport: { width, height: 900 } });
  const page = await context.newPage();
  await page.goto(`${origin}/ui/login`);
  await page.fill('input[name="token"]', t.adminToken);
  await Promise.all([page.waitForURL(`${origin}/ui`), page.click('button[type="submit"]')]);
  return page;
}

/** Call cards with a cell past their right edge that the card does not scroll to (run in the page). */
const SPILLS = `[...document.querySelectorAll("li.call")].filter((card) => {
  const box = card.getBoundingClientRect();
  const scrolls = card.scrollWidth > card.clientWidth;
  return [...card.querySelectorAll("td, th")].some((c) => c.getBoundingClientRect().right > box.right + 1 && !scrolls);
}).length`;
const spills = (page: Page) => page.evaluate(SPILLS);

/** Whether the strip plot's axis title and first tick label overlap (run in the page). */
const OVERLAP = `(() => {
  const unit = document.querySelector("svg.strip text.unit").getBoundingClientRect();
  const first = document.querySelector("svg.strip g.tick text").getBoundingClientRect();
  return !(unit.right <= first.left || first.right <= unit.left || unit.bottom <= first.top || first.bottom <= unit.top);
})()`;

describe.skipIf(!FOUND).each([1400, 800])("the dashboard at %i px", (width) => {
  it("session page: the whole-call refusal's repair, no empty columns, counts with their nouns", async () => {
    const page = await loggedIn(width);
    await page.goto(`${origin}/ui/sessions/${session}`);
    await page.screenshot({ path: `${SHOTS}details-session-${width}.png`, fullPage: true });
    const repair = await page.locator("li.call.refused td.repair").first().innerText();
    expect(repair).toMatch(/^\[invalid_arguments\] read_discharge does not accept these arguments/);
    const heads = await page.locator("li.call").first().locator("th").allInnerTexts();
    expect(heads.map((h) => h.toLowerCase())).toEqual([
      "dir",
      "parameter",
      "as sent",
      "value",
      "unit",
      "outcome",
      "code",
      "repair",
    ]);
    expect(await page.locator("p.meta").innerText()).toMatch(/· 2 calls · 1 violation · 1 blocked$/);
    expect(await spills(page)).toBe(0);
    // The header keeps one line: it is as tall as at any width.
    expect((await page.locator("header.top").boundingBox())?.height).toBe(42);
    await page.context().close();
  });

  it("overview: one session is 'session'", async () => {
    const page = await loggedIn(width);
    const labels = await page.locator(".stats .stat .l").allInnerTexts();
    expect(labels[0]).toBe("session");
    await page.context().close();
  });

  it("the watch pattern reads as written in findings and on the claim page; the strip plot is legible", async () => {
    const page = await loggedIn(width);
    await page.goto(`${origin}/ui/evaluations/${blocked}`);
    const findings = (await page.locator("main").innerText()).replace(/\s+/g, " ");
    expect(findings).toContain("matches the watch pattern `17\\.1 ft`");
    expect(findings).not.toContain("17\\\\.1");
    await page.goto(`${origin}/ui/claims/CLM-1`);
    await page.screenshot({ path: `${SHOTS}details-claim-${width}.png`, fullPage: true });
    expect(await page.locator("main").innerText()).toContain("17\\.1 ft");
    const plot = await page.locator("svg.strip").boundingBox();
    expect(plot?.width).toBeGreaterThan(width === 1400 ? 900 : 600);
    // The axis title and the first tick label do not overlap.
    const overlap = await page.evaluate(OVERLAP);
    expect(overlap).toBe(false);
    await page.context().close();
  });

  it("/docs says Bearer <token>", async () => {
    const page = await loggedIn(width);
    await page.goto(`${origin}/docs`);
    await page.waitForSelector(".info .description, .info .renderedMarkdown", { timeout: 30_000 });
    const text = await page.locator(".info").first().innerText();
    expect(text).toContain("Authorization: Bearer <token>");
    await page.context().close();
  });
});
