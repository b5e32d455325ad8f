// The README's third worked example, run exactly as the README writes it: `node --import tsx demo/june-revision.ts`.
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

describe("README: a provisional March reading, revised in June (offline demo)", () => {
  it("releases the March report, the watch records the June revision, and the June report is blocked", async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", "demo/june-revision.ts"], {
      cwd: ROOT,
      env: { ...process.env, AGENT_LEDGER_USGS_API_KEY: "" },
    });
    const lines = stdout.split("\n");
    expect(lines).toContain(
      "reading 00060 412000 ft^3/s provisional observed 2026-03-14T15:15:00Z (series 8f3c6b0e2d0a4b7e9c1f5a2d3e4b6c70)",
    );
    expect(lines.some((l) => /^evaluation \w+: released \(LEDGER_PROVISIONAL_SOURCE\)$/.test(l))).toBe(true);
    expect(lines).toContain('watch: {"watched":1,"last_run":null,"next_run":null,"requests":0}');
    expect(lines).toContain("1 reading watched in 1 series; 1 request to USGS; 1 revision recorded");
    expect(
      lines.some((l) =>
        /^revision usgs:07374000:00060:8f3c6b0e2d0a4b7e9c1f5a2d3e4b6c70 observed 2026-03-14T15:15:00Z: 412000 ft\^3\/s \(provisional\) -> 405000 ft\^3\/s \(approved\); affects \w+ \(baton-rouge-march-flood\)$/.test(
          l,
        ),
      ),
    ).toBe(true);
    expect(lines.some((l) => /^evaluation \w+: blocked by evidence$/.test(l))).toBe(true);
    expect(
      lines.some((l) => l.startsWith("  LEDGER_SOURCE_REVISED: Fact J1 relies on 412000 ft^3/s (provisional)")),
    ).toBe(true);
    expect(lines.at(-2)).toMatch(/^watch: \{"watched":0,"last_run":"[^"]+","next_run":"[^"]+","requests":1\}$/);
  }, 120_000);
});
