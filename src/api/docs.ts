// /docs: the OpenAPI document rendered server-side as one HTML page (no CDN, no script).

type SchemaRef = { $ref?: string; type?: string | string[]; items?: SchemaRef };
type Media = Record<string, { schema?: SchemaRef } | undefined>;
type Operation = {
  summary?: string;
  description?: string;
  tags?: string[];
  security?: unknown[];
  parameters?: { name?: string; in?: string; required?: boolean }[];
  requestBody?: { content?: Media };
  responses?: Record<string, { description?: string; content?: Media } | undefined>;
};
/** The parts of an OpenAPI 3.1 document the page shows. */
export type DocInput = {
  info: { title: string; version: string; description?: string };
  paths?: Record<string, Record<string, unknown> | undefined>;
  components?: { schemas?: Record<string, unknown> };
  security?: unknown[];
};

const METHODS = ["get", "put", "post", "patch", "delete"] as const;

const escape = (s: string): string =>
  s.replace(/[&<>"']/g, (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[ch]!);

function schemaName(s: SchemaRef | undefined): string {
  if (!s) return "";
  if (s.$ref) return s.$ref.slice(s.$ref.lastIndexOf("/") + 1);
  if (s.type === "array" && s.items) return `${schemaName(s.items)}[]`;
  return Array.isArray(s.type) ? s.type.join(" | ") : (s.type ?? "object");
}

function mediaNames(content: Media | undefined): string {
  if (!content) return "";
  return Object.entries(content)
    .map(([type, m]) =>
      type === "application/json" ? schemaName(m?.schema) : `${type} ${schemaName(m?.schema)}`.trim(),
    )
    .join(", ");
}

function renderOperation(path: string, method: string, op: Operation, secured: boolean): string {
  const params = (op.parameters ?? [])
    .map((p) => `${escape(p.name ?? "")}<small> (${escape(p.in ?? "")}${p.required ? ", required" : ""})</small>`)
    .join(", ");
  const responses = Object.entries(op.responses ?? {})
    .map(
      ([status, r]) =>
        `<li><code>${escape(status)}</code> ${escape(mediaNames(r?.content))} <small>${escape(r?.description ?? "")}</small></li>`,
    )
    .join("");
  const body = mediaNames(op.requestBody?.content);
  const auth = (op.security ?? (secured ? [{}] : [])).length > 0 ? "bearer token" : "no auth";
  return `<section class="op"><h3><span class="m ${method}">${method.toUpperCase()}</span> <code>${escape(path)}</code></h3>
<p>${escape(op.summary ?? "")}${op.description ? ` <small>${escape(op.description)}</small>` : ""} <small class="auth">${auth}</small></p>
${params ? `<p>Parameters: ${params}</p>` : ""}${body ? `<p>Body: <code>${escape(body)}</code></p>` : ""}<ul>${responses}</ul></section>`;
}

/** The HTML page for an OpenAPI document: every operation with its parameters, body and responses, then the schemas. */
export function renderDocsPage(doc: DocInput): string {
  const ops: string[] = [];
  for (const path of Object.keys(doc.paths ?? {}).sort()) {
    const item = doc.paths?.[path] ?? {};
    for (const method of METHODS) {
      const op = item[method] as Operation | undefined;
      if (op) ops.push(renderOperation(path, method, op, path.startsWith("/v1/")));
    }
  }
  const schemas = Object.entries(doc.components?.schemas ?? {})
    .sort(([a], [b]) => a.localeCompare(b))
    .map(
      ([name, s]) =>
        `<details id="schema-${escape(name)}"><summary><code>${escape(name)}</code></summary><pre>${escape(JSON.stringify(s, null, 2))}</pre></details>`,
    )
    .join("\n");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escape(doc.info.title)} ${escape(doc.info.version)} API</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font:15px/1.45 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#222}
code,pre{font-family:ui-monospace,monospace}pre{background:#f5f5f5;padding:.6rem;overflow:auto}
.op{border-top:1px solid #ddd;padding:.3rem 0}.op h3{margin:.5rem 0 .2rem;font-size:1rem}
.m{display:inline-block;min-width:4.2rem;font-weight:600}.get{color:#06c}.post{color:#080}.put{color:#a60}.delete{color:#c00}.patch{color:#70a}
small{color:#666}.auth{float:right}</style></head>
<body><h1>${escape(doc.info.title)} <small>${escape(doc.info.version)}</small></h1>
<p>${escape(doc.info.description ?? "")}</p>
<p>Machine-readable: <a href="/openapi.json">/openapi.json</a> (OpenAPI 3.1). Every <code>/v1</code> route needs
<code>Authorization: Bearer &lt;token&gt;</code>. Errors answer <code>{"error": {"code", "message", "details"?}}</code>.</p>
<h2>Operations (${ops.length})</h2>
${ops.join("\n")}
<h2>Schemas</h2>
${schemas}
</body></html>`;
}
