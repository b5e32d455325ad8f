// The core's imports point one way (quantity, then guard, then provenance; gates over quantity), read from the import lines.
import { readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { SRC, sourceFiles, specifiers, topLevelOf } from "./helpers/imports.js";

/** Which areas of src/ each core area may import from (itself included). */
const ALLOWED: Record<string, readonly string[]> = {
  quantity: ["quantity"],
  guard: ["quantity", "guard"],
  provenance: ["quantity", "guard", "provenance"],
  gates: ["quantity", "guard", "provenance", "gates"],
};

/** Packages the pure core may use: no node: modules, no store, no HTTP. */
const PACKAGES = new Set(["zod", "luxon", "mathjs", "mathjs/lib/browser/math.js", "re2", "smol-toml"]);

/** Each import of a core file that leaves its allowed areas, as "file -> specifier". */
function strayImports(area: string): string[] {
  const stray: string[] = [];
  for (const file of sourceFiles(area)) {
    for (const spec of specifiers(readFileSync(file, "utf8"))) {
      const where = `${relative(SRC, file)} -> ${spec}`;
      if (!spec.startsWith(".")) {
        if (!PACKAGES.has(spec)) stray.push(where);
        continue;
      }
      const targetArea = topLevelOf(relative(SRC, resolve(dirname(file), spec)));
      if (!ALLOWED[area]?.includes(targetArea)) stray.push(where);
    }
  }
  return stray;
}

describe("core import direction", () => {
  it("reads multi-line, export-from and dynamic imports", () => {
    const source =
      'import {\n  a,\n  b,\n} from "../provenance/audit.js";\nexport { c } from "./c.js";\nconst m = await import("../store/db.js");\n';
    expect(specifiers(source)).toEqual(["../provenance/audit.js", "./c.js", "../store/db.js"]);
  });

  for (const area of Object.keys(ALLOWED)) {
    it(`src/${area} imports only ${ALLOWED[area]?.join(", ")} and the core's packages`, () => {
      expect(sourceFiles(area).length).toBeGreaterThan(0);
      expect(strayImports(area)).toEqual([]);
    });
  }

  it("src/guard holds the call-time look-ups and the History port, src/provenance the audit, manifest and replay", () => {
    const names = (area: string) => sourceFiles(area).map((f) => relative(join(SRC, area), f));
    expect(names("guard")).toEqual(expect.arrayContaining(["carryover.ts", "sourced.ts", "history.ts", "verdict.ts"]));
    expect(names("provenance")).toEqual(expect.arrayContaining(["audit.ts", "manifest.ts", "replay.ts"]));
    expect(names("provenance")).not.toContain("history.ts");
  });
});
