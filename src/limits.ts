// The bounds on one request's work: claims per evaluation, crossings per call, JSON depth and answer size. Each is
// checked before any work is done, and a request over one is refused whole (413, nothing stored).

/** The limits a request is held to (settings AGENT_LEDGER_MAX_CLAIMS, _MAX_CROSSINGS, _MAX_DEPTH, _MAX_ANSWER_BYTES). */
export type Limits = {
  /** Claims in one evaluation, summed over its runs. */
  claims: number;
  /** Crossings one call or one result may make: the arguments of a call, the keys of an object result. */
  crossings: number;
  /** Deepest nesting of objects and arrays in a JSON body or a tool argument. */
  depth: number;
  /** Largest answer a list or a manifest may build, in bytes of JSON. */
  answerBytes: number;
};

/** The documented defaults. */
export const DEFAULT_LIMITS: Readonly<Limits> = {
  claims: 1000,
  crossings: 1000,
  depth: 64,
  answerBytes: 16 * 1024 * 1024,
};

/**
 * Claims, arguments or result keys at or above which a request is large: it yields between its phases, an evaluation
 * is decided in the gates worker, and a call or result commits in a group of its own. Below it, each of those costs
 * more than it saves.
 */
export const LARGE_COUNT = 100;

/** The part of the service's time large requests may take together (src/api/large-lane.ts, AGENT_LEDGER_LARGE_SHARE). */
export const DEFAULT_LARGE_SHARE = 0.15;

/** The codes a refusal over a limit carries; each answers 413. */
export type LimitCode = "too_many_claims" | "too_many_crossings" | "too_deep" | "answer_too_large";

/** A request over one of the limits; `details` names the limit and the count. */
export class LimitError extends Error {
  readonly details: { limit: number; count: number; setting: string };
  constructor(
    readonly code: LimitCode,
    message: string,
    limit: number,
    count: number,
  ) {
    super(message);
    this.name = "LimitError";
    this.details = { limit, count, setting: SETTING[code] };
  }
}

const SETTING: Record<LimitCode, string> = {
  too_many_claims: "AGENT_LEDGER_MAX_CLAIMS",
  too_many_crossings: "AGENT_LEDGER_MAX_CROSSINGS",
  too_deep: "AGENT_LEDGER_MAX_DEPTH",
  answer_too_large: "AGENT_LEDGER_MAX_ANSWER_BYTES",
};

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** How many claims an evaluation input carries: a result, {task, result} or {task, runs}; malformed parts count 0. */
export function claimCount(input: unknown): number {
  if (!isObject(input)) return 0;
  const runs = "runs" in input ? input.runs : "result" in input ? [input.result] : [input];
  if (!Array.isArray(runs)) return 0;
  let n = 0;
  for (const r of runs) if (isObject(r) && Array.isArray(r.claims)) n += r.claims.length;
  return n;
}

/** Refuses an evaluation with more claims than `limits.claims` (too_many_claims), before anything reads them. */
export function checkClaims(input: unknown, limits: Limits): void {
  const count = claimCount(input);
  if (count > limits.claims)
    throw new LimitError(
      "too_many_claims",
      `the evaluation has ${count} claims, over the limit of ${limits.claims} per evaluation: ` +
        "split the result, or raise AGENT_LEDGER_MAX_CLAIMS",
      limits.claims,
      count,
    );
}

/** How many crossings a call's arguments or a result make: one per top-level key of an object, else one. */
export function crossingCount(value: unknown): number {
  if (!isObject(value)) return 1;
  let n = 0;
  for (const _ in value) n++;
  return n;
}

/** Refuses a call's arguments or a result that would make more crossings than `limits.crossings`. */
export function checkCrossings(value: unknown, limits: Limits, what: "arguments" | "result"): void {
  const count = crossingCount(value);
  if (count > limits.crossings)
    throw new LimitError(
      "too_many_crossings",
      `the ${what === "arguments" ? "call has" : "result has"} ${count} ${what === "arguments" ? "arguments" : "keys"}, ` +
        `over the limit of ${limits.crossings} crossings per call: send fewer, or raise AGENT_LEDGER_MAX_CROSSINGS`,
      limits.crossings,
      count,
    );
}

/**
 * The deepest nesting of objects and arrays in a value, counting no further than `stopAt`. Iterative on purpose: the
 * values it measures are the ones too deep for recursion.
 */
export function jsonDepth(value: unknown, stopAt = Number.POSITIVE_INFINITY): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== "object") continue;
    const d = depth + 1;
    if (d > deepest) deepest = d;
    if (d > stopAt) return d;
    for (const x of Array.isArray(v) ? v : Object.values(v))
      if (x !== null && typeof x === "object") stack.push([x, d]);
  }
  return deepest;
}

/** Refuses a value nested deeper than `limits.depth` (too_deep); `what` names it in the plural ("the tool's arguments"). */
export function checkDepth(value: unknown, limits: Limits, what: string): void {
  // Measured to the end so the refusal can say how deep it is; linear in the value, which the body limit bounds.
  const depth = jsonDepth(value);
  if (depth > limits.depth)
    throw new LimitError(
      "too_deep",
      `${what} hold objects and arrays nested ${depth} levels deep, over the limit of ${limits.depth}: ` +
        "send flatter JSON, or raise AGENT_LEDGER_MAX_DEPTH",
      limits.depth,
      depth,
    );
}

/** Refuses an answer whose JSON is over `limits.answerBytes` (answer_too_large), with how to ask for less. */
export function checkAnswerSize(bytes: number, limits: Limits, ask: string): void {
  if (bytes > limits.answerBytes)
    throw new LimitError(
      "answer_too_large",
      `the answer would be ${bytes} bytes, over the limit of ${limits.answerBytes}: ${ask}, or raise AGENT_LEDGER_MAX_ANSWER_BYTES`,
      limits.answerBytes,
      bytes,
    );
}

/** The size of a value's JSON in bytes (UTF-8). */
export function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? "", "utf8");
}
