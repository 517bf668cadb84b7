import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { forecastPlugin, json, notesPlugin } from '#test/registry/test-plugins.js';
import { createTestGateway } from '#test/support/test-gateway.js';
import { errorCodes } from '../http/errors.js';
import { type AnyRoute, defineRoute } from '../http/route.js';
import { buildOpenApiDocument, type OpenApiDocument, openApiPath } from './build-document.js';
import { renderApiDocs } from './render-docs.js';

describe('GET /api/openapi.json', () => {
  it('documents every route of the gateway, publicly', async () => {
    const gw = await createTestGateway({ plugins: [notesPlugin()] });
    const res = await gw.request('GET', '/api/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const document = await json<OpenApiDocument>(res);
    expect(document.openapi).toBe('3.1.0');
    expect(document.info).toMatchObject({
      title: 'Gateway API',
      version: expect.stringMatching(/^\d+\.\d+\.\d+/),
    });
    expect(document.servers).toEqual([{ url: 'http://127.0.0.1:8787' }]);

    const routes = await gw.routes();
    expect(routes.length).toBeGreaterThanOrEqual(12);
    for (const route of routes) {
      const operation = document.paths[openApiPath(route.path)]?.[route.method];
      expect(operation, `${route.method} ${route.path}`).toBeDefined();
      expect(operation?.summary).toBe(route.summary);
      for (const status of Object.keys(route.responses))
        expect(operation?.responses).toHaveProperty(status);
    }
    const operations = Object.values(document.paths).flatMap((methods) => Object.values(methods));
    expect(operations).toHaveLength(routes.length);
    expect(new Set(operations.map((op) => op.operationId)).size).toBe(operations.length);
  });

  it('describes parameters, bodies, answers, errors and security from the zod schemas', async () => {
    const gw = await createTestGateway();
    const document = await json<OpenApiDocument>(await gw.request('GET', '/api/openapi.json'));

    const register = document.paths['/api/registry/sources']?.post;
    // One body per source kind (issue 16): a loaded plugin, or an upstream MCP server.
    expect(register?.requestBody?.content['application/json'].schema).toMatchObject({
      oneOf: [
        {
          type: 'object',
          properties: { type: { const: 'plugin' }, namespace: { pattern: '^[a-z0-9_]+$' } },
          required: ['type', 'id', 'namespace', 'pluginId'],
          additionalProperties: false,
        },
        {
          type: 'object',
          properties: { type: { const: 'mcp' }, url: { type: 'string' } },
          required: ['type', 'id', 'namespace', 'url'],
          additionalProperties: false,
        },
      ],
    });
    expect(register?.responses['201']?.content?.['application/json'].schema).toMatchObject({
      properties: { source: { type: 'object' }, tools: { type: 'array' } },
    });
    for (const status of ['400', '401', '403', '404', '409']) {
      expect(register?.responses[status]?.content?.['application/json'].schema).toEqual({
        $ref: '#/components/schemas/ErrorBody',
      });
    }
    expect(register?.security).toEqual([
      { bearerAuth: [] },
      { sessionCookie: [] },
      { serviceSecret: [] },
    ]);
    expect(register?.['x-access']).toBe('service-or-admin');

    const remove = document.paths['/api/policy/roles/{id}']?.delete;
    expect(remove?.parameters).toEqual([
      {
        name: 'id',
        in: 'path',
        required: true,
        description: 'The role id',
        schema: { type: 'string' },
      },
    ]);
    const resolve = document.paths['/api/policy/resolve']?.get;
    expect(resolve?.parameters).toEqual([
      expect.objectContaining({ name: 'userId', in: 'query', required: true }),
    ]);
    expect(document.paths['/api/openapi.json']?.get?.security).toEqual([]);
    expect(document.components.schemas.ErrorBody).toMatchObject({ required: ['error'] });
    expect(Object.keys(document.components.securitySchemes).sort()).toEqual([
      'bearerAuth',
      'serviceSecret',
      'sessionCookie',
    ]);
    // No dialect markers or local $defs inside the document: they would not resolve.
    expect(JSON.stringify(document)).not.toMatch(/"\$schema"|#\/\$defs\//);
  });

  it('documents the error body of every error code in the catalogue, 503 included', async () => {
    const gw = await createTestGateway();
    const document = await json<OpenApiDocument>(await gw.request('GET', '/api/openapi.json'));
    expect(document.components.schemas.ErrorBody).toEqual({
      type: 'object',
      description: 'The body of every non-2xx answer',
      properties: {
        error: {
          type: 'object',
          properties: {
            code: expect.objectContaining({ type: 'string', enum: Object.keys(errorCodes) }),
            message: expect.objectContaining({ type: 'string', minLength: 1 }),
            details: expect.objectContaining({ description: expect.any(String) }),
          },
          required: ['code', 'message'],
          additionalProperties: false,
        },
      },
      required: ['error'],
      additionalProperties: false,
    });
    expect(Object.keys(errorCodes)).toContain('service_unavailable');
    // Every route may refuse an unknown query parameter (or an unwanted body) with a 400.
    for (const methods of Object.values(document.paths)) {
      for (const operation of Object.values(methods)) {
        expect(operation.responses, operation.operationId).toHaveProperty('400');
      }
    }
  });

  it('is built once and served from memory', async () => {
    const gw = await createTestGateway();
    const a = await (await gw.request('GET', '/api/openapi.json')).text();
    const b = await (await gw.request('GET', '/api/openapi.json')).text();
    expect(a).toBe(b);
  });
});

describe('GET /api/docs', () => {
  it('serves a self-contained HTML reference of every operation, fetching nothing elsewhere', async () => {
    const gw = await createTestGateway({ plugins: [notesPlugin(), forecastPlugin()] });
    const res = await gw.request('GET', '/api/docs');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
    const html = await res.text();
    expect(html).toMatch(/^<!doctype html>/);
    for (const route of await gw.routes()) {
      expect(html).toContain(`<code>${openApiPath(route.path)}</code>`);
    }
    expect(html).toContain('service-or-admin');
    expect(html).toContain('Request body');
    // Only the gateway's own base URL may appear; no CDN, font, script or stylesheet.
    const urls = html.match(/https?:\/\/[^\s"'<>)]+/g) ?? [];
    expect(urls.filter((url) => !url.startsWith('http://127.0.0.1:8787'))).toEqual([]);
    expect(html).not.toMatch(/<script|<link|@import|url\(/i);
  });
});

describe('buildOpenApiDocument', () => {
  it('moves $defs of recursive schemas into components and adds implied error answers', () => {
    const node: z.ZodType<{ name: string; children: unknown[] }> = z.object({
      name: z.string(),
      get children() {
        return z.array(node);
      },
    });
    const routes: AnyRoute[] = [
      defineRoute({
        method: 'post',
        path: '/api/trees/:treeId{[a-z]+}',
        summary: 'Plant a tree',
        tag: 'Trees',
        access: 'admin',
        body: z.object({ root: node }),
        responses: { 201: { description: 'Planted', schema: z.object({ root: node }) } },
        handler: (c) => c.json({}),
      }),
    ];
    const document = buildOpenApiDocument(routes, {
      baseUrl: 'http://localhost',
      version: '1.2.3',
    });
    const operation = document.paths['/api/trees/{treeId}']?.post;
    expect(operation?.parameters).toEqual([
      { name: 'treeId', in: 'path', required: true, schema: { type: 'string' } },
    ]);
    expect(Object.keys(operation?.responses ?? {})).toEqual(['201', '400', '401', '403']);
    const text = JSON.stringify(document);
    expect(text).not.toContain('#/$defs/');
    const refs = [...text.matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map(
      (m) => m[1] as string,
    );
    for (const name of refs) expect(document.components.schemas).toHaveProperty(name);
    expect(refs.length).toBeGreaterThan(1);
  });

  it('escapes everything it renders', async () => {
    const routes: AnyRoute[] = [
      defineRoute({
        method: 'get',
        path: '/api/x',
        summary: '<img src=x onerror=alert(1)>',
        tag: 'X & "Y"',
        access: 'public',
        responses: { 200: { description: '<b>ok</b>' } },
        handler: (c) => c.json({}),
      }),
    ];
    const html = await renderApiDocs(
      buildOpenApiDocument(routes, { baseUrl: 'http://localhost', version: '1' }),
    );
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<b>ok');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
  });
});
