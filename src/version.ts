// The package version, read from package.json once (cheap: no other import).
import { readFileSync } from "node:fs";

/** The version in package.json, e.g. "0.1.0". */
export const VERSION: string = (
  JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }
).version;
