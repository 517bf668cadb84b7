import { defineAuthProviders, definePlugin, defineToolFor, ToolError } from '@gateway/sdk';
import { z } from 'zod';

/**
 * GitHub's API address, read at call time. GitHub Enterprise and GitHub Actions set
 * GITHUB_API_URL; the tests point it at a fake GitHub (`startFakeUpstream`).
 */
function apiUrl(): string {
  return process.env.GITHUB_API_URL ?? 'https://api.github.com';
}

/** The credentials this plugin's tools may ask for. */
export const authProviders = defineAuthProviders([
  // Add `repo` to the scopes to include private repositories.
  { id: 'github', type: 'oauth2', provider: 'github', scopes: ['read:user'] },
]);

// Its tools take only these provider ids in `authProvider` and `ctx.auth.getToken()`: `tsc`
// refuses a misspelt or undeclared one.
const defineTool = defineToolFor(authProviders);

const repository = z.object({
  name: z.string(),
  fullName: z.string(),
  private: z.boolean(),
  url: z.string(),
  updatedAt: z.string(),
});

const githubRepository = z.object({
  name: z.string(),
  full_name: z.string(),
  private: z.boolean(),
  html_url: z.string(),
  updated_at: z.string(),
});

/** Lists the repositories of the signed-in user, with the OAuth token the gateway holds. */
export const listRepositories = defineTool({
  path: '{{id}}.repos.list',
  name: 'List Repositories',
  description: 'Lists the GitHub repositories of the signed-in user, most recently updated first.',
  inputSchema: z.object({
    limit: z.number().int().min(1).max(100).default(20).describe('How many repositories to return'),
  }),
  outputSchema: z.object({ repositories: z.array(repository) }),
  authProvider: 'github',
  async handler(ctx, { limit }, { signal }) {
    const url = new URL('/user/repos', apiUrl());
    url.searchParams.set('sort', 'updated');
    url.searchParams.set('per_page', String(limit));
    // ctx.auth.fetch sends the user's GitHub token (their linked account or GitHub connection,
    // refreshed by the gateway when it expires: the plugin never stores or refreshes tokens) as
    // `Authorization: Bearer`, and turns GitHub's 401 (reconnect), 403, 404, 429 and 503 (try
    // again, with Retry-After) into errors the user and the model can act on.
    const response = await ctx.auth.fetch('github', url, {
      headers: { accept: 'application/vnd.github+json', 'x-github-api-version': '2022-11-28' },
      signal,
    });
    if (!response.ok) throw new ToolError(`GitHub answered HTTP ${response.status}`);
    const body = z.array(githubRepository).safeParse(await response.json());
    if (!body.success)
      throw new ToolError('GitHub sent a response this plugin does not understand');
    return {
      repositories: body.data.map((repo) => ({
        name: repo.name,
        fullName: repo.full_name,
        private: repo.private,
        url: repo.html_url,
        updatedAt: repo.updated_at,
      })),
    };
  },
});

export default definePlugin({
  id: '{{id}}',
  name: '{{title}}',
  description: 'Your GitHub repositories, from the web app and AI clients.',
  authProviders,
  tools: [listRepositories],
});
