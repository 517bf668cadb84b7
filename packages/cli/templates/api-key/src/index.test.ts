import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AuthRequiredError } from '@gateway/sdk';
import { createTestContext, runTool } from '@gateway/sdk/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import plugin, { searchItems } from './index.js';

// A fake upstream on a free local port: the tests need no network and no real key.
const requests: { url: string; authorization: string | undefined }[] = [];
const upstream = createServer((request, response) => {
  requests.push({ url: request.url ?? '', authorization: request.headers.authorization });
  if (request.headers.authorization !== 'Bearer test-key') {
    response.writeHead(401).end();
    return;
  }
  const query = new URL(request.url ?? '/', 'http://upstream').searchParams.get('q');
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end(
    JSON.stringify({
      items: [
        { id: '1', title: `First ${query}`, url: 'https://example.com/items/1' },
        { id: '2', title: `Second ${query}`, url: 'https://example.com/items/2' },
      ],
    }),
  );
});

beforeAll(async () => {
  upstream.listen(0, '127.0.0.1');
  await once(upstream, 'listening');
  const { port } = upstream.address() as AddressInfo;
  vi.stubEnv('{{envPrefix}}_API_URL', `http://127.0.0.1:${port}`);
});

afterAll(() => {
  vi.unstubAllEnvs();
  upstream.close();
});

describe('{{id}}', () => {
  it('keeps every tool under its plugin id', () => {
    expect(plugin.tools.map((tool) => tool.path)).toEqual(['{{id}}.items.search']);
  });

  it('searches with the key the gateway vends', async () => {
    const ctx = createTestContext({ plugin, tokens: { '{{id}}': 'test-key' } });
    const result = await runTool(searchItems, { query: 'tea', limit: 1 }, ctx);
    expect(result.items).toEqual([
      { id: '1', title: 'First tea', url: 'https://example.com/items/1' },
    ]);
    expect(requests.at(-1)).toEqual({
      url: '/v1/items?q=tea&limit=1',
      authorization: 'Bearer test-key',
    });
  });

  it('asks the user to connect when no key is stored', async () => {
    const error = await runTool(searchItems, { query: 'tea' }).catch((caught: unknown) => caught);
    expect(AuthRequiredError.isInstance(error)).toBe(true);
  });

  it('tells the user when the upstream rejects the key', async () => {
    const ctx = createTestContext({ plugin, tokens: { '{{id}}': 'revoked-key' } });
    await expect(runTool(searchItems, { query: 'tea' }, ctx)).rejects.toThrow(
      'rejected the API key',
    );
  });
});
