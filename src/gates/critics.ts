// The deterministic critics of the adversarial gate: fixed rules that object without a model.
import type { Finding, Result } from "./contracts.js";
import { finding } from "./outcome-kit.js";

/** A critic reads one result and returns its objections. */
export type Critic = (result: Result) => Finding[];

const CERTAINTY_PHRASES = [
  "guaranteed",
  "guarantees",
  "definitely",
  "undeniably",
  "beyond (?:any )?doubt",
  "without (?:any )?doubt",
  "proves that",
  "proven fact",
  "always works",
  "never fails",
  "cannot fail",
  "zero risk",
  "risk-free",
  "100% certain",
  "100% sure",
];
// Our own fixed pattern, not user input, so a JS RegExp is fine here.
const CERTAINTY = new RegExp(`(?<![\\w-])(?:${CERTAINTY_PHRASES.join("|")})(?![\\w-])`, "gi");

/** A number followed by %, x or ×: the figures a reader takes as measured results. */
const FIGURE = /(?<![\w.])[+\-−]?\d+(?:[.,]\d+)?\s?(?:%|x|×)(?!\w)/gi;

function figureKey(raw: string): string {
  return raw
    .replace(/[+\-−\s]/g, "")
    .replace(/×/g, "x")
    .replace(/,/g, ".")
    .toLowerCase();
}

function figures(text: string): string[] {
  return [...text.matchAll(FIGURE)].map((m) => m[0]);
}

function certaintyLanguage(result: Result): Finding[] {
  const hits = [...new Set([...result.output.matchAll(CERTAINTY)].map((m) => m[0].toLowerCase()))];
  return hits.map((h) =>
    finding(
      "CERTAINTY_LANGUAGE",
      `The output states "${h}"; evidence supports a measured claim, not certainty. Replace it with the measured figure and its source.`,
    ),
  );
}

function unsupportedFigure(result: Result): Finding[] {
  const support = [
    ...result.claims.flatMap((c) => [
      c.text,
      c.value === undefined || c.value === null
        ? ""
        : typeof c.value === "object"
          ? `${String(c.value.value)} ${c.value.unit}`
          : String(c.value),
    ]),
    ...result.comparisons.map((c) => (c.effect === undefined || c.effect === null ? "" : String(c.effect))),
  ].join("\n");
  const supported = new Set(figures(support).map(figureKey));
  const seen = new Set<string>();
  const out: Finding[] = [];
  for (const f of figures(result.output)) {
    const k = figureKey(f);
    if (supported.has(k) || seen.has(k)) continue;
    seen.add(k);
    out.push(
      finding(
        "UNSUPPORTED_FIGURE",
        `The output states the figure "${f.trim()}", which no claim or comparison carries. Add a claim whose ` +
          `text or value states it, with its source, or remove it.`,
      ),
    );
  }
  return out;
}

/** The built-in critics by name, in the order they run. */
export const CRITICS = {
  certainty_language: certaintyLanguage,
  unsupported_figure: unsupportedFigure,
} as const satisfies Record<string, Critic>;

/** Names that `adversarial.critics` may list. */
export const CRITIC_NAMES = Object.keys(CRITICS) as [keyof typeof CRITICS, ...(keyof typeof CRITICS)[]];

/** A built-in critic's name. */
export type CriticName = keyof typeof CRITICS;
