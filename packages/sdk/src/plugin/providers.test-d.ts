import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import type { PluginContext } from '../context/types.js';
import { defineTool, defineToolFor } from '../tool/define-tool.js';
import { defineAuthProviders, definePlugin } from './define-plugin.js';
import type { AuthProvider } from './types.js';

// Issue 34: `authProvider: 'githb'` and an undeclared `getToken('github')` compiled.
const authProviders = defineAuthProviders([
  { id: 'weather', type: 'api_key', provider: 'weather', scopes: [] },
  { id: 'github', type: 'oauth2', provider: 'github', scopes: ['repo'] },
]);
const defineWeatherTool = defineToolFor(authProviders);

const base = {
  description: 'Does a thing.',
  inputSchema: z.object({}),
};

describe('typed providers', () => {
  it('defineToolFor takes only the declared ids, in authProvider and getToken()', () => {
    const tool = defineWeatherTool({
      ...base,
      path: 'weather.forecast.get',
      name: 'Get Forecast',
      authProvider: 'weather',
      async handler(ctx) {
        expectTypeOf(ctx).toEqualTypeOf<PluginContext<'weather' | 'github'>>();
        await ctx.auth.getToken('weather');
        await ctx.auth.getToken('github', { instance: 'Work' });
        // @ts-expect-error slack is not one of the plugin's providers
        await ctx.auth.getToken('slack');
        const response = await ctx.auth.fetch('github', 'https://api.github.com/user', {
          instance: 'Work',
          headers: { accept: 'application/json' },
        });
        expectTypeOf(response).toEqualTypeOf<Response>();
        // @ts-expect-error the request helper takes only the declared ids too
        await ctx.auth.fetch('slack', 'https://slack.com/api/auth.test');
        return {};
      },
    });
    expectTypeOf(tool.authProvider).toEqualTypeOf<'weather' | undefined>();

    defineWeatherTool({
      ...base,
      path: 'weather.forecast.get',
      name: 'Get Forecast',
      // @ts-expect-error a misspelt provider id
      authProvider: 'githb',
      async handler() {
        return {};
      },
    });
  });

  it('definePlugin refuses a tool naming a provider the plugin does not declare', () => {
    const misspelt = defineTool({
      ...base,
      path: 'weather.forecast.get',
      name: 'Get Forecast',
      authProvider: 'githb',
      async handler() {
        return {};
      },
    });
    const plain = defineTool({
      ...base,
      path: 'weather.forecast.list',
      name: 'List Forecasts',
      authProvider: 'github',
      async handler(ctx) {
        // Without defineToolFor() the handler cannot know the plugin: any id compiles.
        expectTypeOf(ctx).toEqualTypeOf<PluginContext>();
        return {};
      },
    });
    definePlugin({
      id: 'weather',
      name: 'Weather',
      description: 'Forecasts.',
      authProviders,
      tools: [plain],
    });
    definePlugin({
      id: 'weather',
      name: 'Weather',
      description: 'Forecasts.',
      authProviders,
      // @ts-expect-error githb is not one of the plugin's providers
      tools: [misspelt],
    });
    definePlugin({
      id: 'weather',
      name: 'Weather',
      description: 'Forecasts.',
      // Declared inline, the ids are known too.
      authProviders: [{ id: 'weather', type: 'api_key', provider: 'weather', scopes: [] }],
      // @ts-expect-error github is not declared here
      tools: [plain],
    });
    definePlugin({
      id: 'weather',
      name: 'Weather',
      description: 'Forecasts.',
      // No providers at all: a tool may not name one.
      // @ts-expect-error github is not declared
      tools: [plain],
    });
  });

  it('checks tools defined inline in definePlugin() the same way', () => {
    definePlugin({
      id: 'weather',
      name: 'Weather',
      description: 'Forecasts.',
      authProviders: [{ id: 'weather', type: 'api_key', provider: 'weather', scopes: [] }],
      tools: [
        defineTool({ ...base, path: 'weather.a.b', name: 'A B', authProvider: 'weather', handler }),
        defineWeatherTool({ ...base, path: 'weather.a.c', name: 'A C', handler }),
      ],
    });
    definePlugin({
      id: 'weather',
      name: 'Weather',
      description: 'Forecasts.',
      authProviders: [{ id: 'weather', type: 'api_key', provider: 'weather', scopes: [] }],
      tools: [
        // @ts-expect-error githb is not one of the plugin's providers
        defineTool({ ...base, path: 'weather.a.b', name: 'A B', authProvider: 'githb', handler }),
      ],
    });
  });

  it('definePlugin refuses tools made for another plugin’s providers', () => {
    const forOther = defineToolFor(
      defineAuthProviders([{ id: 'slack', type: 'oauth2', provider: 'slack', scopes: [] }]),
    )({
      ...base,
      path: 'weather.slack.post',
      name: 'Post Message',
      async handler(ctx) {
        await ctx.auth.getToken('slack');
        return {};
      },
    });
    definePlugin({
      id: 'weather',
      name: 'Weather',
      description: 'Forecasts.',
      authProviders,
      // @ts-expect-error the tool asks for slack, which this plugin does not declare
      tools: [forOther],
    });
  });

  it('stays as before for plugins whose providers are not literal, or that declare none', () => {
    const providers: AuthProvider[] = [
      { id: 'weather', type: 'api_key', provider: 'weather', scopes: [] },
    ];
    const tool = defineTool({
      ...base,
      path: 'weather.forecast.get',
      name: 'Get Forecast',
      authProvider: 'weather',
      async handler(ctx) {
        await ctx.auth.getToken('anything');
        return {};
      },
    });
    definePlugin({
      id: 'weather',
      name: 'Weather',
      description: 'Forecasts.',
      authProviders: providers,
      tools: [tool, defineWeatherTool({ ...base, path: 'weather.a.b', name: 'A B', handler })],
    });
    definePlugin({
      id: 'weather',
      name: 'Weather',
      description: 'Forecasts.',
      tools: [defineTool({ ...base, path: 'weather.a.b', name: 'A B', handler })],
    });
  });
});

async function handler() {
  return {};
}

describe("a plugin's own OAuth provider", () => {
  it('is declared with oauth, without provider or scopes, and its id is typed like any other', () => {
    const own = defineAuthProviders([
      {
        id: 'notion',
        type: 'oauth2',
        oauth: {
          authorizationUrl: 'https://api.notion.com/v1/oauth/authorize',
          tokenUrl: 'https://api.notion.com/v1/oauth/token',
          authorizationParams: { owner: 'user' },
        },
      },
      { id: 'search', type: 'api_key', send: { header: 'x-api-key' } },
    ]);
    defineToolFor(own)({
      ...base,
      path: 'notes.pages.list',
      name: 'List Pages',
      authProvider: 'notion',
      async handler(ctx) {
        await ctx.auth.fetch('notion', 'https://api.notion.com/v1/search');
        // @ts-expect-error not declared
        await ctx.auth.fetch('github', 'https://api.github.com/user');
        return {};
      },
    });
  });
});
