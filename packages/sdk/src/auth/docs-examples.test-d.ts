/**
 * The examples of docs/plugins.md ("Your own OAuth provider", "Calling the API", "Approvals",
 * "Links", the fake upstream and `asCaller` under "Testing"), as written there: `tsc` checks they
 * compile.
 */
import {
  askForm,
  defineTool as defineAnyTool,
  defineAuthProviders,
  definePlugin,
  defineToolFor,
  requireApproval,
  ToolError,
} from '@gateway/sdk';
import { createTestContext, runTool, startFakeUpstream } from '@gateway/sdk/testing';
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

it('the approval, link and runTool asCaller examples of docs/plugins.md compile', async () => {
  const store = { create: (_userId: string, input: { title: string }) => ({ id: '1', ...input }) };
  const orders = { isPaid: async (_id: string) => true };
  const createNote = defineAnyTool({
    path: 'notes.notes.create',
    name: 'Create Note',
    description: 'Creates a note.',
    inputSchema: z.object({ title: z.string() }),
    destructive: true,
    // "Approvals": no toolPath.
    async handler(ctx, input) {
      await requireApproval(ctx, {
        message: `Create the note "${input.title}"?`,
        args: input,
      });
      return store.create(ctx.userId, input);
    },
  });
  defineAnyTool({
    path: 'shop.orders.pay',
    name: 'Pay Order',
    description: 'Pays an order.',
    inputSchema: z.object({ id: z.string() }),
    // "Links".
    async handler(ctx, input) {
      const answer = await ctx.elicit({
        message: `Pay for order ${input.id}`,
        type: 'url',
        url: `https://pay.example.com/orders/${input.id}`,
      });
      if (!answer.approved) throw new ToolError('The order was not paid.');
      return { paid: await orders.isPaid(input.id) };
    },
  });
  // "Testing", with asCaller.
  const seen = await runTool(createNote, { title: 'x' }, createTestContext({ approve: false }), {
    asCaller: true,
  });
  expect(seen).toEqual({
    content: [
      { type: 'text', text: 'The user did not approve notes.notes.create; nothing was changed.' },
    ],
    isError: true,
  });
});

it('the askForm example of docs/plugins.md compiles', () => {
  const orders = { ship: async (_id: string, _speed: 'std' | 'exp', _gift: boolean) => {} };
  defineAnyTool({
    path: 'shop.orders.ship',
    name: 'Ship Order',
    description: 'Ships an order.',
    inputSchema: z.object({ id: z.string() }),
    async handler(ctx, input) {
      const answer = await askForm(ctx, {
        message: `How should order ${input.id} ship?`,
        schema: z.object({
          speed: z.enum(['std', 'exp']).default('std').describe('Standard takes 3-5 days'),
          gift: z.boolean().default(false),
        }),
      });
      if (!answer.approved) throw new ToolError('The order was not shipped.');
      await orders.ship(input.id, answer.data.speed, answer.data.gift); // 'std' | 'exp', boolean
      return { shipped: true };
    },
  });
});
