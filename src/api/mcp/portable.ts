// Output schemas in the spelling the MCP Inspector's portability check accepts. zod writes a union of bare types (a
// nullable string, say) as one `type` array, `type: ["string", "null"]`, and has no option to keep it an `anyOf`; the
// Inspector warns on every such array. The rewrite here is the exact inverse of zod's compaction, so the schema means
// the same, and validation stays zod's own.
import type { StandardSchemaWithJSON } from "@modelcontextprotocol/server";
import { z } from "zod";

/** Any JSON value, typed at every level (an open object's values are this, never the untyped `{}`). */
export const JsonValue = z.json();

type Json = Record<string, unknown>;
/** Keywords whose values are data, not schemas: left as they are. */
const DATA_KEYWORDS = new Set(["const", "enum", "default", "examples"]);

/** A JSON Schema with every `type` array spelled as an `anyOf` of one-type branches; other keywords stay where they are. */
export function typeArraysAsAnyOf(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(typeArraysAsAnyOf);
  if (typeof node !== "object" || node === null) return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node)) out[k] = DATA_KEYWORDS.has(k) ? v : typeArraysAsAnyOf(v);
  // zod only compacts a union that has no `type` of its own and whose branches are bare, so no `anyOf` sits beside it.
  if (Array.isArray(out.type) && out.anyOf === undefined) {
    out.anyOf = out.type.map((type) => ({ type }));
    delete out.type;
  }
  return out;
}

/** A zod schema for registerTool whose advertised JSON Schema has no `type` array; it validates exactly as zod does. */
export function portable<S extends z.ZodType>(schema: S): StandardSchemaWithJSON<z.input<S>, z.output<S>> {
  const std = schema["~standard"];
  return {
    "~standard": {
      version: 1,
      vendor: std.vendor,
      validate: (value, options) => std.validate(value, options),
      jsonSchema: {
        input: (options) => typeArraysAsAnyOf(std.jsonSchema.input(options)) as Json,
        output: (options) => typeArraysAsAnyOf(std.jsonSchema.output(options)) as Json,
      },
    },
  };
}
