import { type Html, html, raw } from '../web/html.js';
import {
  ACCESS_DESCRIPTIONS,
  ERROR_BODY_REF,
  type OpenApiDocument,
  type OpenApiOperation,
} from './build-document.js';

/**
 * The Content-Security-Policy of the API reference: it loads nothing at all (no script, font,
 * image or stylesheet from anywhere), so it works offline and leaks no visit to a third party.
 */
export const DOCS_CONTENT_SECURITY_POLICY =
  "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const STYLE = `
:root { color-scheme: light dark; --fg: #1d1f23; --muted: #5f6670; --bg: #fff; --panel: #f5f6f8; --line: #dfe2e6; --accent: #2456c7; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6e8eb; --muted: #a0a7b1; --bg: #15171a; --panel: #1e2125; --line: #30343a; --accent: #7aa2ff; } }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); }
header, main { max-width: 980px; margin: 0 auto; padding: 0 20px; }
header { padding-top: 28px; }
h1 { margin: 0 0 4px; font-size: 26px; }
h2 { margin: 36px 0 12px; font-size: 20px; border-bottom: 1px solid var(--line); padding-bottom: 6px; }
h3 { margin: 0; font-size: 16px; font-weight: 600; display: flex; gap: 10px; align-items: baseline; flex-wrap: wrap; }
h4 { margin: 14px 0 6px; font-size: 13px; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); }
a { color: var(--accent); }
code, pre { font: 13px/1.45 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
pre { background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: 10px 12px; overflow: auto; max-height: 420px; margin: 6px 0; }
.muted { color: var(--muted); }
nav ul { columns: 2; padding-left: 18px; }
.op { border: 1px solid var(--line); border-radius: 8px; padding: 14px 16px; margin: 14px 0; }
.method { font: 700 12px/1 ui-monospace, monospace; padding: 4px 7px; border-radius: 4px; color: #fff; text-transform: uppercase; }
.get { background: #1f7a4d; } .post { background: #2456c7; } .put { background: #a86400; } .delete { background: #b3261e; }
.access { font-size: 12px; border: 1px solid var(--line); border-radius: 999px; padding: 1px 8px; color: var(--muted); }
table { border-collapse: collapse; width: 100%; margin: 4px 0; }
th, td { text-align: left; vertical-align: top; border-bottom: 1px solid var(--line); padding: 5px 8px; font-size: 14px; }
th { font-weight: 600; color: var(--muted); font-size: 12px; text-transform: uppercase; }
details > summary { cursor: pointer; color: var(--muted); font-size: 13px; }
`;

/**
 * Renders an OpenAPI document as one self-contained HTML page: every operation with its method,
 * path, summary, access, parameters, request body schema and responses. Styles are inline and
 * nothing is fetched from elsewhere; every value is escaped by the server's HTML kit.
 *
 * @example
 * return c.html(await renderApiDocs(buildOpenApiDocument(routes, options)));
 */
export async function renderApiDocs(document: OpenApiDocument): Promise<string> {
  const byTag = new Map<string, { method: string; path: string; operation: OpenApiOperation }[]>();
  for (const [path, methods] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      const tag = operation.tags[0] ?? 'Other';
      if (!byTag.has(tag)) byTag.set(tag, []);
      byTag.get(tag)?.push({ method, path, operation });
    }
  }

  const contents = [...byTag].map(
    ([tag, operations]) =>
      html`<li><a href="#tag-${anchor(tag)}">${tag}</a><ul>${operations.map(
        ({ method, path, operation }) =>
          html`<li><a href="#${anchor(operation.operationId)}"><code>${method.toUpperCase()} ${path}</code></a></li>`,
      )}</ul></li>`,
  );

  const sections = [...byTag].map(
    ([tag, operations]) =>
      html`<section><h2 id="tag-${anchor(tag)}">${tag}</h2>${operations.map(
        ({ method, path, operation }) => renderOperation(method, path, operation),
      )}</section>`,
  );

  const errorBody = document.components.schemas.ErrorBody;
  const page = await html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${document.info.title} reference</title>
<style>${raw(STYLE)}</style>
</head>
<body>
<header>
<h1>${document.info.title} <span class="muted">${document.info.version}</span></h1>
<p>${document.info.description}</p>
<p class="muted">Base URL: <code>${document.servers[0]?.url ?? ''}</code> · Machine-readable: <a href="openapi.json">/api/openapi.json</a> (OpenAPI ${document.openapi})</p>
</header>
<main>
<nav><h2>Operations</h2><ul>${contents}</ul></nav>
${sections}
<section><h2 id="error-body">Error body</h2><p>Every non-2xx answer has this shape.</p>${schemaBlock(errorBody)}</section>
</main>
</body>
</html>
`;
  return page.toString();
}

function renderOperation(method: string, path: string, operation: OpenApiOperation): Html {
  const parameters = operation.parameters ?? [];
  const parameterTable =
    parameters.length === 0
      ? ''
      : html`<h4>Parameters</h4><table><thead><tr><th>Name</th><th>In</th><th>Required</th><th>Schema</th><th>Description</th></tr></thead><tbody>${parameters.map(
          (parameter) =>
            html`<tr><td><code>${parameter.name}</code></td><td>${parameter.in}</td><td>${
              parameter.required ? 'yes' : 'no'
            }</td><td><code>${compactSchema(parameter.schema)}</code></td><td>${parameter.description ?? ''}</td></tr>`,
        )}</tbody></table>`;
  const body = operation.requestBody
    ? html`<h4>Request body <span class="muted">application/json</span></h4>${schemaBlock(operation.requestBody.content['application/json'].schema)}`
    : '';
  const responses = Object.entries(operation.responses).map(([status, response]) => {
    const schema = response.content?.['application/json'].schema;
    const isError = schema !== undefined && schema.$ref === ERROR_BODY_REF;
    const detail =
      schema === undefined
        ? ''
        : isError
          ? html`<span class="muted"> · <a href="#error-body">error body</a></span>`
          : html`<details><summary>Schema</summary>${schemaBlock(schema)}</details>`;
    return html`<tr><td><code>${status}</code></td><td>${response.description}${detail}</td></tr>`;
  });
  return html`<article class="op" id="${anchor(operation.operationId)}">
<h3><span class="method ${method}">${method}</span><code>${path}</code><span class="access">${operation['x-access']}</span></h3>
<p>${operation.summary}</p>
<p class="muted">${ACCESS_DESCRIPTIONS[operation['x-access']]}</p>
${parameterTable}${body}
<h4>Responses</h4><table><thead><tr><th>Status</th><th>Description</th></tr></thead><tbody>${responses}</tbody></table>
</article>`;
}

function schemaBlock(schema: unknown): Html {
  return html`<pre>${JSON.stringify(schema, null, 2)}</pre>`;
}

/** A parameter's schema on one line, e.g. `string (1..200)`. */
function compactSchema(schema: Record<string, unknown>): string {
  const type = typeof schema.type === 'string' ? schema.type : JSON.stringify(schema);
  const bounds: string[] = [];
  if (typeof schema.minLength === 'number' || typeof schema.maxLength === 'number') {
    bounds.push(`${schema.minLength ?? 0}..${schema.maxLength ?? ''} chars`);
  }
  if (typeof schema.pattern === 'string') bounds.push(`pattern ${schema.pattern}`);
  if (typeof schema.format === 'string') bounds.push(schema.format);
  return bounds.length > 0 ? `${type} (${bounds.join(', ')})` : type;
}

function anchor(text: string): string {
  return text.replace(/[^A-Za-z0-9_-]/g, '-');
}
