// A long walk on the event loop yields a turn after every slice of items (PostgreSQL's verify hashes its pages so), in
// order, stopping at the first item that answers.
import { describe, expect, it } from "vitest";
import { SLICE, stepInSlices } from "../../src/store/common/in-slices.js";

/** Walks `n` items in slices of `slice`, recording how many were stepped each time a turn of the loop came round. */
async function turnsDuring(n: number, slice: number): Promise<{ stepped: number; atTurns: number[] }> {
  let stepped = 0;
  const atTurns: number[] = [];
  let walking = true;
  const tick = () => {
    if (!walking) return;
    atTurns.push(stepped);
    setImmediate(tick);
  };
  setImmediate(tick);
  await stepInSlices(
    Array.from({ length: n }, (_, i) => i),
    () => {
      stepped += 1;
      return null;
    },
    slice,
  );
  walking = false;
  return { stepped, atTurns };
}

describe("stepInSlices", () => {
  it("lets the event loop turn after each full slice of items, and not within one", async () => {
    expect(await turnsDuring(10, 4)).toEqual({ stepped: 10, atTurns: [4, 8] });
  });

  it("takes no turn for a walk shorter than one slice", async () => {
    expect(await turnsDuring(SLICE - 1, SLICE)).toEqual({ stepped: SLICE - 1, atTurns: [] });
  });

  it("steps the items in order and stops at the first one that answers, answering it", async () => {
    const seen: number[] = [];
    const answer = await stepInSlices([1, 2, 3, 4, 5], (x) => (seen.push(x), x === 3 ? `item ${x}` : null), 2);
    expect(answer).toBe("item 3");
    expect(seen).toEqual([1, 2, 3]);
  });

  it("answers null when every item passed", async () => {
    expect(await stepInSlices(["a", "b"], () => null)).toBeNull();
  });
});
