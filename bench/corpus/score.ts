import type { Tasks } from "./corpus.js";
import type { Observed } from "./load.js";
export type Scores = { n: number };
export function score(o: Observed[], _t: Tasks): Scores { return { n: o.length }; }
