// What counts as a source: a locator a reader can follow, as opposed to junk (`x`, `trust me`) or circular ("our earlier draft").
import { isLedgerSource } from "./locators.js";

/** How one source string was judged. */
export type SourceVerdict =
  | { kind: "locator"; form: LocatorForm; text: string }
  | { kind: "missing" }
  | { kind: "circular"; text: string; why: string }
  | { kind: "junk"; text: string };

/** The accepted locator forms. */
export type LocatorForm =
  | "url"
  | "uri"
  | "path"
  | "file"
  | "command"
  | "commit"
  | "position"
  | "registry"
  | "doi"
  | "ledger";

/** Phrases that point at the agent's own earlier output; the README's two first. */
export const CIRCULAR_PHRASES = [
  "our earlier draft",
  "as stated above",
  "earlier draft",
  "previous draft",
  "prior draft",
  "our draft",
  "this draft",
  "as mentioned above",
  "as noted above",
  "as shown above",
  "see above",
  "the above",
  "stated earlier",
  "mentioned earlier",
  "noted earlier",
  "as discussed",
  "earlier output",
  "previous output",
  "prior output",
  "our output",
  "previous answer",
  "previous response",
  "earlier response",
  "this report",
  "this document",
  "this analysis",
  "our analysis",
  "my analysis",
  "our own analysis",
] as const;

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
// Word boundaries that treat `-` and `_` as word characters, so "this-report.md" is a file, not a phrase.
const CIRCULAR = new RegExp(`(?<![\\w-])(?:${CIRCULAR_PHRASES.map(escape).join("|")})(?![\\w-])`, "i");

const DOC_EXTENSIONS = [
  "md",
  "txt",
  "csv",
  "tsv",
  "json",
  "jsonl",
  "yaml",
  "yml",
  "toml",
  "pdf",
  "xlsx",
  "xls",
  "docx",
  "doc",
  "pptx",
  "html",
  "htm",
  "xml",
  "log",
  "sql",
  "ipynb",
  "parquet",
  "py",
  "ts",
  "js",
  "rs",
  "go",
  "java",
];
const POSITION_WORDS = [
  "sheet",
  "tab",
  "page",
  "p\\.",
  "pp\\.",
  "table",
  "figure",
  "fig\\.",
  "section",
  "§",
  "appendix",
  "chapter",
  "slide",
  "row",
  "column",
  "cell",
  "line",
  "item",
  "paragraph",
  "para",
];

const LINE = "(?::\\d+(?:-\\d+)?)?";
const PATH = new RegExp(`^(\\.{1,2}/|/)?[\\w.@+-]+(?:/[\\w.@+-]+)*${LINE}$`);

/** Whole-string grammars of the accepted forms, tried in order (our own fixed patterns). */
const FORMS: readonly { form: LocatorForm; test: (s: string) => boolean }[] = [
  { form: "url", test: (s) => /^https?:\/\/(?:[^\s/:?#]+\.[^\s/:?#]+|localhost)(?::\d+)?(?:[/?#]\S*)?$/i.test(s) },
  {
    form: "doi",
    test: (s) =>
      /^(?:doi:\s?|https?:\/\/doi\.org\/)?10\.\d{4,9}\/\S+$/i.test(s) || /^arxiv:?\s?\d{4}\.\d{4,5}(?:v\d+)?$/i.test(s),
  },
  {
    form: "uri",
    test: (s) => /^(?!https?:)[a-z][a-z0-9+.-]*:\/\/[^\s/]+(?:\/\S*)?$/i.test(s) || /^file:\/\/\/\S+$/i.test(s),
  },
  { form: "command", test: (s) => /^\$\s+\S+/.test(s) },
  { form: "commit", test: isCommit },
  {
    form: "file",
    test: (s) => new RegExp(`^[\\w@+-][\\w.@+-]*\\.(?:${DOC_EXTENSIONS.join("|")})${LINE}$`, "i").test(s),
  },
  { form: "path", test: isPath },
  {
    form: "position",
    test: (s) => new RegExp(`^(?:${POSITION_WORDS.join("|")})\\s?[a-z]{0,3}\\d+[a-z0-9.:–-]*$`, "i").test(s),
  },
  { form: "registry", test: isRegistryId },
];

function isCommit(s: string): boolean {
  const m = /^(?:commit\s+)?([0-9a-f]{7,40})(?:\s+\(commit\))?$/i.exec(s);
  return m?.[1] !== undefined && /\d/.test(m[1]) && /[a-f]/i.test(m[1]);
}

function isPath(s: string): boolean {
  const m = PATH.exec(s);
  if (!m) return false;
  const bare = s.replace(/:\d+(?:-\d+)?$/, "");
  const slashes = (bare.match(/\//g) ?? []).length;
  const last = bare.split("/").pop() ?? "";
  return (slashes >= 1 && /\.[A-Za-z0-9]{1,10}$/.test(last)) || m[1] !== undefined || slashes >= 2;
}

function isRegistryId(s: string): boolean {
  // Case-sensitive on purpose: "Companies House 05662277" names a register; "trust me 20245" does not.
  const m = /^(?:[A-Z][A-Za-z&'.-]*\s+){1,5}(?:(?:No\.|number|#)\s*)?([A-Z0-9./-]+)$/.exec(s);
  return m?.[1] !== undefined && (m[1].match(/\d/g) ?? []).length >= 5;
}

/** Trims and collapses whitespace, the form every rule reads. */
export function normaliseSource(s: string): string {
  return s.trim().replace(/\s+/g, " ");
}

/** Judges one source string; `claimIds` are the ids of the claims in the same run (citing one is circular). */
export function classifySource(source: string, claimIds: ReadonlySet<string> = new Set()): SourceVerdict {
  const text = normaliseSource(source);
  if (text === "") return { kind: "missing" };
  // Resolved against the team's rows by the evidence gate, not judged by spelling (a malformed one names nothing there).
  if (isLedgerSource(text)) return { kind: "locator", form: "ledger", text };
  const phrase = CIRCULAR.exec(text);
  if (phrase) return { kind: "circular", text, why: `"${phrase[0]}" refers to the agent's own earlier output` };
  const cited = text.replace(/^(?:see|cf\.)\s+/i, "");
  if (claimIds.has(cited)) return { kind: "circular", text, why: `it names claim ${cited} of the same result` };
  const hit = FORMS.find((f) => f.test(text));
  return hit ? { kind: "locator", form: hit.form, text } : { kind: "junk", text };
}

/** Judges a claim's `source` field: a string, a list (every element must pass) or nothing. */
export function classifySources(
  source: string | string[] | null | undefined,
  claimIds: ReadonlySet<string> = new Set(),
): SourceVerdict[] {
  if (source === undefined || source === null) return [{ kind: "missing" }];
  const list = Array.isArray(source) ? source : [source];
  if (list.length === 0) return [{ kind: "missing" }];
  return list.map((s) => classifySource(s, claimIds));
}

/** True when a locator names a file on disk (forms path and file), the ones `evidence.check_paths` can verify. */
export function isFileLocator(v: SourceVerdict): v is { kind: "locator"; form: "path" | "file"; text: string } {
  return v.kind === "locator" && (v.form === "path" || v.form === "file");
}
