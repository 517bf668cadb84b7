import { AuthRequiredError } from '@gateway/sdk';
import { createTestContext, runTool, startFakeUpstream } from '@gateway/sdk/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import plugin, { searchItems } from './index.js';

// A fake upstream on a free local port (a real HTTP server on 127.0.0.1): the tests need no
// network and no real key. Each request is kept in `upstream.requests`.
let upstream: Awaited<ReturnType<typeof startFakeUpstream>>;

beforeAll(async () => {
  upstream = await startFakeUpstream((request) => {
    if (request.headers.authorization !== 'Bearer test-key') return { status: 401 };
    const query = request.query.get('q');
    if (query === 'busy') return { status: 429, headers: { 'retry-after': '30' } };
    return {
      body: {
        items: [
          { id: '1', title: `First ${query}`, url: 'https://example.com/items/1' },
          { id: '2', title: `Second ${query}`, url: 'https://example.com/items/2' },
        ],
      },
    };
  });
  vi.stubEnv('{{envPrefix}}_API_URL', upstream.url);
});

afterAll(async () => {
  vi.unstubAllEnvs();
  await upstream.close();
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
    const last = upstream.requests.at(-1);
    expect(`${last?.path}?${last?.query}`).toBe('/v1/items?q=tea&limit=1');
    expect(last?.headers.authorization).toBe('Bearer test-key');
  });

  it('asks the user to connect when no key is stored', async () => {
    const error = await runTool(searchItems, { query: 'tea' }).catch((caught: unknown) => caught);
    expect(AuthRequiredError.isInstance(error)).toBe(true);
  });

  it('asks the user to reconnect when the upstream rejects the key, never showing it', async () => {
    const ctx = createTestContext({ plugin, tokens: { '{{id}}': 'revoked-key' } });
    const error = await runTool(searchItems, { query: 'tea' }, ctx).catch(
      (caught: unknown) => caught,
    );
    expect(AuthRequiredError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain('Reconnect it');
    expect((error as Error).message).not.toContain('revoked-key');
  });

  it('tells an MCP caller when to try again when the upstream is busy', async () => {
    const ctx = createTestContext({ plugin, tokens: { '{{id}}': 'test-key' } });
    const result = await runTool(searchItems, { query: 'busy' }, ctx, { asCaller: true });
    expect(result.isError).toBe(true);
    expect(result.content).toEqual([
      { type: 'text', text: expect.stringContaining('429 Too Many Requests; try again in 30 s') },
    ]);
  });
});
