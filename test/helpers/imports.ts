// Reading a source tree's import lines, shared by the import-rule tests (core-imports, layers): no parser, only the
// three shapes our code writes, so the tests stay fast and read every file as it is on disk.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository's src/ folder. */
export const SRC = resolve(dirname(fileURLToPath(import.meta.url)), "../../src");

/** Every module specifier a source file names in an import, an export ... from, or a dynamic import(). */
export function specifiers(source: string): string[] {
  const found: string[] = [];
  const patterns = [
    /^\s*(?:import|export)\b[^;]*?\bfrom\s*["']([^"']+)["']/gms,
    /^\s*import\s*["']([^"']+)["']/gm,
    /\bimport\(\s*["']([^"']+)["']\s*\)/g,
  ];
  for (const pattern of patterns) for (const m of source.matchAll(pattern)) found.push(m[1] as string);
  return found;
}

/** The .ts and .tsx files under one folder of src/ (its path relative to src/), recursively, as absolute paths. */
export function sourceFiles(folder: string): string[] {
  const root = join(SRC, folder);
  return readdirSync(root, { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".ts") || f.endsWith(".tsx"))
    .map((f) => join(root, f));
}

/** The top-level entry of src/ a path (relative to src/) lies in: its first folder, or the file itself at the root. */
export function topLevelOf(pathInSrc: string): string {
  return pathInSrc.includes(sep) ? (pathInSrc.split(sep)[0] as string) : pathInSrc;
}

/** One relative import of a file under src/: "file -> specifier" as written, and the top-level entry it reaches. */
export type SrcImport = { where: string; target: string };

/** The relative imports in one file under src/ (absolute path), each with the top-level entry of src/ it reaches. */
export function relativeImports(file: string): SrcImport[] {
  return specifiers(readFileSync(file, "utf8"))
    .filter((spec) => spec.startsWith("."))
    .map((spec) => {
      // Specifiers name the compiled .js; the source beside it is .ts or .tsx, the same top-level entry either way.
      const target = topLevelOf(relative(SRC, resolve(dirname(file), spec)).replace(/\.js$/, ".ts"));
      return { where: `${relative(SRC, file)} -> ${spec}`, target };
    });
}
