import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { DEFAULT_SETTINGS, mergeSettings, parseThresholdsToml, SettingsError } from "../../src/gates/settings.js";

const thrown = (fn: () => unknown): SettingsError => {
  try {
    fn();
  } catch (e) {
    if (e instanceof SettingsError) return e;
    throw e;
  }
  throw new Error("expected a SettingsError");
};

describe("settings", () => {
  it("ships thresholds.default.toml with exactly the default settings", () => {
    const text = readFileSync(new URL("../../thresholds.default.toml", import.meta.url), "utf8");
    expect(mergeSettings(DEFAULT_SETTINGS, parseThresholdsToml(text))).toEqual(DEFAULT_SETTINGS);
    expect(parseThresholdsToml(text)).toEqual(DEFAULT_SETTINGS);
  });

  it("has the README's simplicity limits and conjunctive gates by default", () => {
    expect(DEFAULT_SETTINGS.simplicity).toEqual({
      max_exposed_controls: 7,
      max_required_decisions: 5,
      max_configuration_steps: 3,
    });
    expect(DEFAULT_SETTINGS.global.conjunctive).toBe(true);
  });

  it("merges a partial file over the defaults, section by section", () => {
    const s = mergeSettings(
      DEFAULT_SETTINGS,
      parseThresholdsToml("[simplicity]\nmax_exposed_controls = 10\n[global]\nconjunctive = false\n"),
    );
    expect(s.simplicity).toEqual({ max_exposed_controls: 10, max_required_decisions: 5, max_configuration_steps: 3 });
    expect(s.global).toEqual({ ...DEFAULT_SETTINGS.global, conjunctive: false });
    expect(s.weights).toEqual(DEFAULT_SETTINGS.weights);
  });

  it("merges a request's JSON settings the same way", () => {
    expect(mergeSettings(DEFAULT_SETTINGS, { statistics: { min_tests: 3 } }).statistics).toEqual({
      min_sample_size: 1,
      min_tests: 3,
    });
  });

  it("refuses an unknown key, naming it and the known keys", () => {
    const e = thrown(() => mergeSettings(DEFAULT_SETTINGS, { simplicity: { max_controls: 3 } }));
    expect(e.code).toBe("invalid_settings");
    expect(e.issues).toEqual([
      {
        key: "simplicity.max_controls",
        message:
          "unknown setting `simplicity.max_controls`; known keys of [simplicity] are max_exposed_controls, max_required_decisions, max_configuration_steps",
      },
    ]);
  });

  it("refuses an unknown section and an unknown critic", () => {
    expect(thrown(() => parseThresholdsToml("[gates]\nx = 1\n")).issues.map((i) => i.key)).toEqual(["gates"]);
    expect(thrown(() => parseThresholdsToml('[adversarial]\ncritics = ["vibes"]\n')).issues.map((i) => i.key)).toEqual([
      "adversarial.critics.0",
    ]);
  });

  it("refuses a mistyped or out-of-range value, naming the key", () => {
    expect(
      thrown(() => mergeSettings(DEFAULT_SETTINGS, { global: { min_score: "high" } })).issues.map((i) => i.key),
    ).toEqual(["global.min_score"]);
    expect(thrown(() => mergeSettings(DEFAULT_SETTINGS, { provenance: { max_recalled_share: 2 } })).message).toBe(
      "provenance.max_recalled_share: Too big: expected number to be <=1",
    );
  });

  it("refuses text that is not TOML, with the position", () => {
    expect(thrown(() => parseThresholdsToml("[global\n")).message).toMatch(
      /^thresholds\.toml is not valid TOML at line 1, column \d+: /,
    );
  });
});
