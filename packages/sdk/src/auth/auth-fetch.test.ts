import { describe, expect, it, onTestFinished } from 'vitest';
import { z } from 'zod';
import { AuthRequiredError } from '../errors/auth-required-error.js';
import { ToolError } from '../errors/tool-error.js';
import { defineAuthProviders, definePlugin } from '../plugin/define-plugin.js';
import { createTestContext } from '../testing/create-test-context.js';
import { startFakeUpstream } from '../testing/fake-upstream.js';
import { runTool } from '../testing/run-tool.js';
import { defineToolFor } from '../tool/define-tool.js';
import { UpstreamUnavailableError } from './auth-fetch.js';

const KEY = 'sk-test-0123456789abcdef';

async function world() {
  const upstream = await startFakeUpstream(
    (request) => {
      const status = Number(request.query.get('status') ?? '200');
      return {
        status,
        // An upstream echoing the credential: the helper's errors must not carry it on.
        body: { echoed: request.headers['x-api-key'] ?? request.headers.authorization },
        ...(status === 429 || status === 503 ? { headers: { 'retry-after': '30' } } : {}),
      };
    },
    { cleanup: onTestFinished },
  );
  const authProviders = defineAuthProviders([
    { id: 'notes', type: 'api_key', send: { header: 'x-api-key' } },
    {
      id: 'wiki',
      type: 'oauth2',
      oauth: {
        authorizationUrl: 'https://wiki.example/authorize',
        tokenUrl: 'https://wiki.example/token',
      },
    },
  ]);
  const tool = defineToolFor(authProviders);
  const get = tool({
    path: 'notes.items.get',
    name: 'Get Item',
    description: 'Gets an item.',
    inputSchema: z.object({ status: z.number().int(), provider: z.enum(['notes', 'wiki']) }),
    async handler(ctx, input) {
      const response = await ctx.auth.fetch(
        input.provider,
        `${upstream.url}/items/1?status=${input.status}&key=${KEY}`,
      );
      return { status: response.status };
    },
  });
  const plugin = definePlugin({
    id: 'notes',
    name: 'Notes',
    description: 'Notes.',
    authProviders,
    tools: [get],
  });
  const ctx = () => createTestContext({ plugin, tokens: { notes: KEY, wiki: KEY } });
  return { upstream, get, ctx };
}

describe('ctx.auth.fetch', () => {
  it('sends the credential the way the provider says: a named header, or Bearer', async () => {
    const { upstream, get, ctx } = await world();
    expect(await runTool(get, { status: 200, provider: 'notes' }, ctx())).toEqual({ status: 200 });
    expect(upstream.requests[0]?.headers['x-api-key']).toBe(KEY);
    expect(upstream.requests[0]?.headers.authorization).toBeUndefined();
    await runTool(get, { status: 200, provider: 'wiki' }, ctx());
    expect(upstream.requests[1]?.headers.authorization).toBe(`Bearer ${KEY}`);
  });

  it.each([
    [
      401,
      AuthRequiredError,
      'refused your "notes" credential (401: revoked or expired). Reconnect it',
    ],
    [403, ToolError, 'answered 403 Forbidden: your "notes" credential lacks access'],
    [404, ToolError, 'answered 404 Not Found'],
    [429, UpstreamUnavailableError, 'answered 429 Too Many Requests; try again in 30 s.'],
    [503, UpstreamUnavailableError, 'answered 503 Service Unavailable; try again in 30 s.'],
  ])('maps %i to a tool error without the credential', async (status, kind, words) => {
    const { upstream, get, ctx } = await world();
    const failure = await runTool(get, { status, provider: 'notes' }, ctx()).catch(
      (e: unknown) => e,
    );
    expect(failure).toBeInstanceOf(kind);
    const message = (failure as Error).message;
    expect(message).toContain(words);
    expect(message).toContain(`${upstream.url}/items/1`);
    expect(message).not.toContain(KEY);
    expect(message).not.toContain('status=');
    if (failure instanceof UpstreamUnavailableError) expect(failure.retryAfterSeconds).toBe(30);
  });

  it('reads Retry-After as seconds or an HTTP date, caps it at a day, and says later without one', async () => {
    const after = { value: '' };
    const upstream = await startFakeUpstream(
      () => ({
        status: 503,
        headers:
          after.value === '' ? {} : ({ 'retry-after': after.value } as Record<string, string>),
      }),
      { cleanup: onTestFinished },
    );
    const busy = defineToolFor([{ id: 'notes', type: 'api_key' }] as const)({
      path: 'notes.items.get',
      name: 'Get Item',
      description: 'Gets an item.',
      inputSchema: z.object({}),
      handler: async (ctx) => (await ctx.auth.fetch('notes', upstream.url)).status,
    });
    const failure = async (value: string) => {
      after.value = value;
      const ctx = createTestContext({ tokens: { notes: KEY } });
      return (await runTool(busy, {}, ctx).catch((e: unknown) => e)) as UpstreamUnavailableError;
    };
    const dated = await failure(new Date(Date.now() + 120_000).toUTCString());
    expect(dated.retryAfterSeconds).toBeGreaterThan(100);
    expect(dated.retryAfterSeconds).toBeLessThanOrEqual(120);
    expect((await failure('9999999')).retryAfterSeconds).toBe(86_400);
    const without = await failure('');
    expect(without.retryAfterSeconds).toBeUndefined();
    expect(without.message).toContain('503 Service Unavailable; try again later.');
    expect((await failure('soon')).retryAfterSeconds).toBeUndefined();
  });

  it('returns any other answer as it is, and refuses an undeclared provider before sending', async () => {
    const { upstream, get, ctx } = await world();
    expect(await runTool(get, { status: 418, provider: 'notes' }, ctx())).toEqual({ status: 418 });
    const context = ctx();
    const undeclared = (context.auth.fetch as (p: string, u: string) => Promise<Response>)(
      'github',
      upstream.url,
    );
    await expect(undeclared).rejects.toThrow('"github"');
    expect(upstream.requests).toHaveLength(1);
  });

  it('says the upstream cannot be reached, naming no credential', async () => {
    const broken = defineToolFor([{ id: 'notes', type: 'api_key' }] as const)({
      path: 'notes.items.get',
      name: 'Get Item',
      description: 'Gets an item.',
      inputSchema: z.object({}),
      async handler(ctx) {
        await ctx.auth.fetch('notes', `http://127.0.0.1:9/items?key=${KEY}`);
        return {};
      },
    });
    const failure = await runTool(broken, {}, createTestContext({ tokens: { notes: KEY } })).catch(
      (e: unknown) => e as Error,
    );
    expect(failure).toBeInstanceOf(ToolError);
    expect((failure as Error).message).toMatch(
      /^Could not reach http:\/\/127\.0\.0\.1:9\/items \(/,
    );
    expect((failure as Error).message).not.toContain(KEY);
  });
});

describe('the fake upstream example of docs/plugins.md', () => {
  it('runs as written', async () => {
    // The plugin of the docs' example, as far as the test context reads it.
    const plugin = {
      id: 'notion',
      authProviders: [
        {
          id: 'notion',
          type: 'oauth2' as const,
          oauth: { authorizationUrl: 'https://n.example/a', tokenUrl: 'https://n.example/t' },
        },
      ],
    };
    const upstream = await startFakeUpstream(
      () => ({ status: 429, headers: { 'retry-after': '30' } }),
      { cleanup: onTestFinished },
    );
    const ctx = createTestContext({ plugin, tokens: { notion: 'test-token' } });
    await expect(ctx.auth.fetch('notion', `${upstream.url}/v1/search`)).rejects.toThrow(
      'try again in 30 s',
    );
    expect(upstream.requests[0]?.headers.authorization).toBe('Bearer test-token');
  });
});
