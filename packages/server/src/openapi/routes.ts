import type { AnyRoute } from '../http/route.js';
import { defineRoute } from '../http/route.js';
import type { OpenApiDocument } from './build-document.js';
import { SERVER_VERSION } from './server-version.js';

/** What the API reference routes describe. */
export interface OpenApiRoutesOptions {
  /** Every documented route; read at the first request, when the route table is complete. */
  routes: () => readonly AnyRoute[];
  /** {base_url}; read per request because it is only final once the server listens. */
  baseUrl: () => string;
  /** Default: the server package's version. */
  version?: string;
}

/**
 * `GET /api/openapi.json` and `GET /api/docs` (public): the OpenAPI 3.1 document of every route,
 * and an HTML reference rendered from it. Both are built on first use and kept; the modules that
 * build them load then too, not at start (issue 37).
 *
 * @example
 * routes.push(...openApiRoutes({ routes: () => routes, baseUrl: () => services.baseUrl }));
 */
export function openApiRoutes(options: OpenApiRoutesOptions): AnyRoute[] {
  let cached: { baseUrl: string; document: OpenApiDocument; html?: string } | undefined;
  const current = async () => {
    const baseUrl = options.baseUrl();
    if (cached?.baseUrl !== baseUrl) {
      const version = options.version ?? SERVER_VERSION;
      const { buildOpenApiDocument } = await import('./build-document.js');
      cached = { baseUrl, document: buildOpenApiDocument(options.routes(), { baseUrl, version }) };
    }
    return cached;
  };

  return [
    defineRoute({
      method: 'get',
      path: '/api/openapi.json',
      summary: 'The OpenAPI 3.1 document of this API',
      tag: 'Reference',
      access: 'public',
      responses: { 200: { description: 'The OpenAPI document (JSON)' } },
      handler: async (c) => c.json((await current()).document),
    }),
    defineRoute({
      method: 'get',
      path: '/api/docs',
      summary: 'The API reference as a web page',
      tag: 'Reference',
      access: 'public',
      responses: { 200: { description: 'A self-contained HTML page (text/html)' } },
      handler: async (c) => {
        const entry = await current();
        const { DOCS_CONTENT_SECURITY_POLICY, renderApiDocs } = await import('./render-docs.js');
        entry.html ??= await renderApiDocs(entry.document);
        c.header('Content-Security-Policy', DOCS_CONTENT_SECURITY_POLICY);
        return c.html(entry.html);
      },
    }),
  ];
}
