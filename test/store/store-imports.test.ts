// The store's own import rules, read from the import lines: one core (src/store's root and common/) with two peer
// drivers (sqlite/, pg/), and code outside the store reaching a driver only through its opening module.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), "../../src");

/** The parts of src/store: the core (root files and common/) and the two drivers. */
type Part = "core" | "sqlite" | "pg";

/** Which parts of the store each part may import (itself included). */
const STORE_RULES: Record<Part, readonly Part[]> = {
  core: ["core"],
  sqlite: ["core", "sqlite"],
  pg: ["core", "pg"],
};

/** What of src/ outside the store a store file may import: the pure core and the few leaf modules the store uses. */
const STORE_MAY_USE = [
  "quantity",
  "guard",
  "provenance",
  "gates",
  "gateway",
  "clock.ts",
  "config.ts",
  "limits.ts",
  "text.ts",
];

/** Core files that may import a driver, and which: opening a store picks the engine. */
const CORE_OPENERS: Record<string, readonly string[]> = {
  "store/open.ts": ["store/sqlite/store.ts", "store/pg/store.ts"],
  // The ledger chain of an open store picks the engine's chain the same way.
  "store/chain-access.ts": [
    "store/sqlite/store.ts",
    "store/pg/store.ts",
    "store/sqlite/chain-port.ts",
    "store/pg/chain.ts",
  ],
};

/** The drivers' opening modules: the only driver modules code outside src/store may import. */
const OPENING_MODULES = ["store/sqlite/db.ts", "store/sqlite/store.ts", "store/pg/open.ts", "store/pg/store.ts"];

/** Code outside the store that works on one engine's files directly, with the driver modules it may import. */
const ENGINE_TOOLS: Record<string, { may: readonly string[]; why: string }> = {
  "library/session.ts": {
    may: ["store/sqlite/ledger.ts", "store/sqlite/teams.ts"],
    why: "the library's synchronous SQLite backend",
  },
  "cli/copy.ts": {
    may: [
      "store/sqlite/ledger.ts",
      "store/sqlite/manifests.ts",
      "store/sqlite/schema-check.ts",
      "store/pg/copy.ts",
      "store/pg/tx.ts",
    ],
    why: "copies a SQLite ledger file into PostgreSQL, table by table",
  },
  "cli/ledger-file.ts": { may: ["store/sqlite/schema-check.ts"], why: "checks a SQLite file's schema" },
  "cli/archive.ts": { may: ["store/sqlite/archive.ts"], why: "moves sessions out of a SQLite file" },
};

/** Every module specifier a source file names in an import, an export ... from, or a dynamic import(). */
function specifiers(source: string): string[] {
  const found: string[] = [];
  const patterns = [
    /^\s*(?:import|export)\b[^;]*?\bfrom\s*["']([^"']+)["']/gms,
    /^\s*import\s*["']([^"']+)["']/gm,
    /\bimport\(\s*["']([^"']+)["']\s*\)/g,
  ];
  for (const pattern of patterns) for (const m of source.matchAll(pattern)) found.push(m[1] as string);
  return found;
}

/** The .ts and .tsx files under a folder of src/, recursively, as paths relative to src/. */
function filesUnder(folder: string): string[] {
  return readdirSync(join(SRC, folder), { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".ts") || f.endsWith(".tsx"))
    .map((f) => join(folder, f).split(sep).join("/"));
}

/** A relative specifier of `file` as a path relative to src/ with its .ts ending (null for a package). */
function target(file: string, spec: string): string | null {
  if (!spec.startsWith(".")) return null;
  const path = relative(SRC, resolve(SRC, dirname(file), spec))
    .split(sep)
    .join("/");
  return path.replace(/\.js$/, ".ts");
}

/** The part of the store a path (relative to src/) lies in, or null outside the store. */
function partOf(path: string): Part | null {
  if (!path.startsWith("store/")) return null;
  if (path.startsWith("store/sqlite/")) return "sqlite";
  if (path.startsWith("store/pg/")) return "pg";
  return "core";
}

/** Each import of a store file that breaks the store's rules, as "file -> specifier". */
function strayStoreImports(): string[] {
  const stray: string[] = [];
  for (const file of filesUnder("store")) {
    const from = partOf(file) as Part;
    for (const spec of specifiers(readFileSync(join(SRC, file), "utf8"))) {
      const to = target(file, spec);
      if (to === null) continue;
      const part = partOf(to);
      const allowed =
        part === null
          ? STORE_MAY_USE.some((m) => to === m || to.startsWith(`${m}/`))
          : STORE_RULES[from].includes(part) || (CORE_OPENERS[file]?.includes(to) ?? false);
      if (!allowed) stray.push(`src/${file} -> ${spec}`);
    }
  }
  return stray;
}

/** Each import from outside the store into a driver that is neither an opening module nor a listed engine tool's. */
function strayDriverImports(): string[] {
  const stray: string[] = [];
  const outside = readdirSync(SRC, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? (e.name === "store" ? [] : filesUnder(e.name)) : e.name.endsWith(".ts") ? [e.name] : [],
  );
  for (const file of outside) {
    for (const spec of specifiers(readFileSync(join(SRC, file), "utf8"))) {
      const to = target(file, spec);
      if (to === null) continue;
      const part = partOf(to);
      if (part !== "sqlite" && part !== "pg") continue;
      if (OPENING_MODULES.includes(to) || ENGINE_TOOLS[file]?.may.includes(to)) continue;
      stray.push(`src/${file} -> ${spec}`);
    }
  }
  return stray;
}

describe("store import rules", () => {
  it("reads multi-line, export-from and dynamic imports", () => {
    const source =
      'import {\n  a,\n} from "../model.js";\nexport { c } from "./c.js";\nconst m = await import("./pg/store.js");\n';
    expect(specifiers(source)).toEqual(["../model.js", "./c.js", "./pg/store.js"]);
  });

  it("src/store's root and common/ import neither driver (opening a store excepted), sqlite/ and pg/ only the core and their own folder", () => {
    expect(filesUnder("store/sqlite").length).toBeGreaterThan(0);
    expect(filesUnder("store/pg").length).toBeGreaterThan(0);
    expect(strayStoreImports()).toEqual([]);
  });

  it("code outside src/store reaches a driver only through its opening modules (and the listed engine tools)", () => {
    expect(strayDriverImports()).toEqual([]);
  });
});
