import { defineAuthProviders, definePlugin, defineToolFor, ToolError } from '@gateway/sdk';
import { z } from 'zod';

const API_URL_VARIABLE = '{{envPrefix}}_API_URL';

/** The upstream API, read at call time so tests and staging can point the plugin elsewhere. */
function apiUrl(): string {
  return process.env[API_URL_VARIABLE] ?? 'https://api.example.com';
}

/** The credentials this plugin's tools may ask for. */
export const authProviders = defineAuthProviders([
  { id: '{{id}}', type: 'api_key', provider: '{{id}}', scopes: [] },
]);

// Its tools take only these provider ids in `authProvider` and `ctx.auth.getToken()`: `tsc`
// refuses a misspelt or undeclared one.
const defineTool = defineToolFor(authProviders);

const item = z.object({ id: z.string(), title: z.string(), url: z.string() });
const searchResponse = z.object({ items: z.array(item) });

/** Searches the upstream API with the key the gateway vends for this user. */
export const searchItems = defineTool({
  path: '{{id}}.items.search',
  name: 'Search Items',
  description: 'Searches {{title}} for items matching the query, best matches first.',
  inputSchema: z.object({
    query: z.string().min(1).describe('Words to search for'),
    limit: z.number().int().min(1).max(50).default(10).describe('How many items to return'),
  }),
  outputSchema: searchResponse,
  authProvider: '{{id}}',
  async handler(ctx, { query, limit }, { signal }) {
    // The key is the user's connection, a team connection or the server's {{envPrefix}}_API_KEY;
    // the plugin never stores it.
    const key = await ctx.auth.getToken('{{id}}');
    const url = new URL('/v1/items', apiUrl());
    url.searchParams.set('q', query);
    url.searchParams.set('limit', String(limit));
    const response = await fetch(url, {
      headers: { authorization: `Bearer ${key}`, accept: 'application/json' },
      signal,
    });
    if (response.status === 401 || response.status === 403) {
      throw new ToolError(
        '{{title}} rejected the API key; connect a new one with `gateway connect {{id}}`',
      );
    }
    if (!response.ok) throw new ToolError(`{{title}} answered HTTP ${response.status}`);
    const body = searchResponse.safeParse(await response.json());
    if (!body.success)
      throw new ToolError('{{title}} sent a response this plugin does not understand');
    return { items: body.data.items.slice(0, limit) };
  },
});

export default definePlugin({
  id: '{{id}}',
  name: '{{title}}',
  description: 'Search {{title}} from the web app and AI clients.',
  authProviders,
  tools: [searchItems],
});
