// The largest requests the limits allow, shared by the limit tests, the event-loop test and bench:abuse.

/** One result of `n` fact claims on one key, values "0 m".."n-1 m": the shape that once took 200 s at 9,000. */
export function factsOnOneKey(n: number, taskId = "many-facts") {
  return {
    task: { id: taskId },
    result: {
      output: "Lengths.",
      claims: Array.from({ length: n }, (_, i) => ({
        id: `F${i}`,
        kind: "fact",
        text: `Length ${i}.`,
        key: "length",
        value: `${i} m`,
        source: "https://example.org/lengths",
        confidence: 0.9,
        verified: true,
      })),
    },
  };
}
