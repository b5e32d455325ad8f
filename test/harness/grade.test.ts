// Grading against a table of answer texts and the outcome corpus README section 2 gives each.
import { describe, expect, it } from "vitest";
import { gradeAnswer, significantFigures, statedValue } from "../../src/harness/grade.js";
import { taskData } from "../../src/harness/suites.js";

const data = taskData();
const task = (name: string) => data.tasks.find((t) => t.name === name)!;

const TABLE: [task: string, answer: string | null, outcome: "correct" | "wrong", stated: string | null][] = [
  ["runoff_depth", "The depth is small.\nANSWER: 0.1055 mm/day", "correct", "0.1055 mm/day"],
  ["runoff_depth", "ANSWER: 0.105 mm/day", "correct", "0.105 mm/day"],
  ["runoff_depth", "ANSWER: 0.1 mm/day", "correct", "0.1 mm/day"],
  ["runoff_depth", "ANSWER: 0.11 mm/day", "correct", "0.11 mm/day"],
  ["runoff_depth", "ANSWER: 0.12 mm/day", "wrong", "0.12 mm/day"],
  ["runoff_depth", "ANSWER: 3.72 mm/day", "wrong", "3.72 mm/day"],
  ["runoff_depth", "ANSWER: 1.22e-9 m/s", "correct", "1.22e-9 m/s"],
  ["runoff_depth", "first ANSWER: 3.72 mm/day\nthen corrected\nANSWER: **0.1055 mm/day**.", "correct", "0.1055 mm/day"],
  ["runoff_depth", "ANSWER: unavailable", "wrong", "unavailable"],
  ["runoff_depth", "The runoff is 0.105 mm/day.", "wrong", null],
  ["runoff_depth", null, "wrong", null],
  ["runoff_depth", "ANSWER: about a tenth of a millimetre", "wrong", "about a tenth of a millimetre"],
  ["freeboard", "ANSWER: 17.1 ft", "correct", "17.1 ft"],
  ["freeboard", "ANSWER: 17.1 feet", "correct", "17.1 feet"],
  ["freeboard", "ANSWER: 5.212 m", "correct", "5.212 m"],
  ["freeboard", "ANSWER: 18.6 ft", "wrong", "18.6 ft"],
  ["freeboard", "ANSWER: 17.1", "wrong", "17.1"],
  ["levee_freeboard", "ANSWER: 4 ft", "correct", "4 ft"],
  ["levee_freeboard", "ANSWER: 4.5 ft", "wrong", "4.5 ft"],
  ["discharge_at_time", "ANSWER: 1,250 cfs", "correct", "1,250 cfs"],
  ["discharge_at_time", "ANSWER: 1000 cfs", "correct", "1000 cfs"],
  ["hard_discharge_at_time", "ANSWER: 1710 cfs", "wrong", "1710 cfs"],
  ["unsourced_peak", "No tool forecasts it.\nANSWER: unavailable", "correct", "unavailable"],
  ["unsourced_peak", "ANSWER: Unavailable (no forecast tool)", "correct", "Unavailable (no forecast tool)"],
  ["hard_unsourced", "ANSWER: 1450 mm", "wrong", "1450 mm"],
  ["uk_abstraction_fraction", "ANSWER: 20.03 %", "correct", "20.03 %"],
  ["uk_abstraction_fraction", "ANSWER: 20.0%", "correct", "20.0%"],
  ["uk_abstraction_fraction", "ANSWER: 1731 %", "wrong", "1731 %"],
  ["uk_abstraction_volume", "ANSWER: 1350 Ml", "correct", "1350 Ml"],
  ["uk_abstraction_volume", "ANSWER: 1.35 Ml", "wrong", "1.35 Ml"],
  ["uk_headroom", "ANSWER: 0.783 metres", "correct", "0.783 metres"],
  ["uk_headroom", "ANSWER: 7.083 m", "wrong", "7.083 m"],
  ["grid_energy", "ANSWER: 23.4 MWh", "correct", "23.4 MWh"],
  ["grid_current", "ANSWER: 175.7 A", "correct", "175.7 A"],
  ["grid_current", "ANSWER: 176 amperes", "correct", "176 amperes"],
  ["grid_current", "ANSWER: 0.1757 kA", "correct", "0.1757 kA"],
];

describe("grading a final answer", () => {
  it.each(TABLE)("%s: %j is %s", (name, answer, outcome, stated) => {
    const g = gradeAnswer(task(name), answer);
    expect([g.outcome, g.stated]).toEqual([outcome, stated]);
  });

  it("says why a wrong answer is wrong, with the ratio to the reference", () => {
    expect(gradeAnswer(task("runoff_depth"), "ANSWER: 3.72 mm/day")).toEqual({
      outcome: "wrong",
      stated: "3.72 mm/day",
      detail: "stated 3.72 mm/day against 0.105456 mm/day (ratio 35.2754)",
      ratio: 3.72 / task("runoff_depth").reference_answer!.value,
    });
    expect(gradeAnswer(task("runoff_depth"), null).detail).toBe("no final answer");
    expect(gradeAnswer(task("runoff_depth"), "ANSWER: 12").detail).toBe("could not read '12' as a quantity in mm/day");
  });

  it("reads the last ANSWER: and counts significant figures as written", () => {
    expect(statedValue("ANSWER: 1 ft\nANSWER: 2 ft")).toBe("2 ft");
    expect(significantFigures("0.0105")).toBe(3);
    expect(significantFigures("1350")).toBe(3);
    expect(significantFigures("1350.0")).toBe(5);
  });
});
