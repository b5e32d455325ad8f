import type { Scores } from "./score.js";
export function renderReport(s: Scores, meta: Record<string, unknown>): string { return JSON.stringify({ s, meta }); }
