import { defineAuthProviders, definePlugin, defineToolFor, ToolError } from '@gateway/sdk';
import { z } from 'zod';

const API_URL_VARIABLE = '{{envPrefix}}_API_URL';

/** The upstream API, read at call time so tests and staging can point the plugin elsewhere. */
function apiUrl(): string {
  return process.env[API_URL_VARIABLE] ?? 'https://api.example.com';
}

/** The credentials this plugin's tools may ask for. */
export const authProviders = defineAuthProviders([
  // Sent as `Authorization: Bearer <key>`; `send: { header: 'x-api-key' }` sends it bare instead.
  { id: '{{id}}', type: 'api_key' },
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
    const url = new URL('/v1/items', apiUrl());
    url.searchParams.set('q', query);
    url.searchParams.set('limit', String(limit));
    // ctx.auth.fetch adds the key (the user's connection, a team connection or the server's
    // {{envPrefix}}_API_KEY; the plugin never stores it) and turns the API's 401 (connect a new
    // key), 403, 404, 429 and 503 (try again, with Retry-After) into errors the user and the
    // model can act on, never showing the key.
    const response = await ctx.auth.fetch('{{id}}', url, {
      headers: { accept: 'application/json' },
      signal,
    });
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
