// Gate 8, explainability: every inference, judgment and recommendation gives reasoning with content.
import type { Claim, Result } from "./contracts.js";
import { finding, finish, Tally, type GateOutcome } from "./outcome-kit.js";
import type { Settings } from "./settings.js";
import { CIRCULAR_PHRASES } from "./sources.js";

const FILLER = ["trust me", "n/a", "because", "obviously", "obvious", "clearly", "tbd", "todo", "see"];
const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
// Longest phrases first so "our earlier draft" goes before "earlier draft" leaves "our" behind.
const EMPTY_WORDS = new RegExp(
  `(?<![\\w-])(?:${[...CIRCULAR_PHRASES, ...FILLER]
    .sort((a, b) => b.length - a.length)
    .map(escape)
    .join("|")})(?![\\w-])`,
  "gi",
);

const squash = (s: string): string =>
  s
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();

/** The words of a rationale that carry content: circular phrases and filler removed, only tokens with a letter. */
export function contentWords(rationale: string): string[] {
  return rationale
    .replace(EMPTY_WORDS, " ")
    .split(/\s+/)
    .filter((w) => /\p{L}/u.test(w));
}

const INTERPRETED = new Set<Claim["kind"]>(["inference", "judgment", "recommendation"]);

/** Gate 8: one check per interpreted claim. */
export function explainabilityGate(result: Result, settings: Settings): GateOutcome {
  const t = new Tally();
  const min = settings.explainability.min_rationale_words;
  result.claims.forEach((c, i) => {
    if (!INTERPRETED.has(c.kind)) return;
    const name = `${c.kind[0]?.toUpperCase()}${c.kind.slice(1)} ${c.id ?? `#${i + 1}`}`;
    const rationale = c.rationale?.trim() ?? "";
    if (rationale === "") {
      t.check(false, [
        finding("NO_RATIONALE", `${name} gives no rationale; say what it was inferred from and why.`, {
          claim_id: c.id,
        }),
      ]);
      return;
    }
    const words = contentWords(rationale);
    const echo = squash(rationale) === squash(c.text);
    t.check(words.length >= min && !echo, [
      finding(
        "WEAK_RATIONALE",
        echo
          ? `${name} gives its own text as its rationale; say what it was inferred from and why.`
          : `${name} has the rationale "${rationale}", which has ${words.length} word(s) of content once ` +
              `filler and self-references are removed; at least ${min} are required.`,
        { claim_id: c.id },
      ),
    ]);
  });
  return finish(t, settings.global.warning_penalty);
}
