/**
 * The examples of docs/plugins.md ("Your own OAuth provider", "Calling the API", the fake
 * upstream under "Testing"), as written there: `tsc` checks they compile.
 */
import {
  defineTool as defineAnyTool,
  defineAuthProviders,
  definePlugin,
  defineToolFor,
} from '@gateway/sdk';
import { createTestContext, startFakeUpstream } from '@gateway/sdk/testing';
import { expect, it, onTestFinished } from 'vitest';
import { z } from 'zod';

// Errors are reported inside a test only: the examples are its body.
it('the own OAuth provider example of docs/plugins.md compiles', () => {
  const authProviders = defineAuthProviders([
    {
      id: 'notion',
      type: 'oauth2',
      oauth: {
        authorizationUrl: 'https://api.notion.com/v1/oauth/authorize',
        tokenUrl: 'https://api.notion.com/v1/oauth/token',
        authorizationParams: { owner: 'user' },
      },
    },
  ]);
  const defineTool = defineToolFor(authProviders);

  const searchPages = defineTool({
    path: 'notion.pages.search',
    name: 'Search Pages',
    description: 'Searches the pages shared with the integration.',
    inputSchema: z.object({ query: z.string().describe('Words to look for') }),
    authProvider: 'notion',
    async handler(ctx, { query }) {
      const response = await ctx.auth.fetch('notion', 'https://api.notion.com/v1/search', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'notion-version': '2022-06-28' },
        body: JSON.stringify({ query }),
      });
      const found = (await response.json()) as { results: { id: string }[] };
      return { ids: found.results.map((page) => page.id) };
    },
  });

  const plugin = definePlugin({
    id: 'notion',
    name: 'Notion',
    description: 'Pages of your Notion workspace.',
    authProviders,
    tools: [searchPages],
  });

  // The fake upstream example under "Testing".
  it('the fake upstream example of docs/plugins.md compiles', async () => {
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

it('the declarative approval example of docs/plugins.md compiles', () => {
  const defineTool = defineAnyTool;
  const deleteNote = defineTool({
    path: 'notes.notes.delete',
    name: 'Delete Note',
    description: 'Deletes a note.',
    inputSchema: z.object({ id: z.string().describe('The note to delete') }),
    destructive: true,
    approval: ({ id }) => `Delete note ${id}?`,
    handler: (_ctx, { id }) => ({ deleted: id }),
  });
  expect(deleteNote.approval?.({ id: '1' })).toBe('Delete note 1?');
});
