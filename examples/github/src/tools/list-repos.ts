import { defineTool } from '@gateway/sdk';
import { z } from 'zod';
import type { GitHubApi } from '../api.js';

const upstreamRepos = z.array(
  z.object({
    full_name: z.string(),
    private: z.boolean(),
    description: z.string().nullable(),
    html_url: z.string(),
    default_branch: z.string(),
    updated_at: z.string(),
  }),
);

/** `github.repos.list`: repositories the signed-in user can access. */
export function listReposTool(api: GitHubApi) {
  return defineTool({
    path: 'github.repos.list',
    name: 'List Repositories',
    description:
      'Lists GitHub repositories the user owns, collaborates on or reaches through an ' +
      'organization, most recently updated first unless sort says otherwise. Read-only; page ' +
      'through long lists with page.',
    inputSchema: z.object({
      visibility: z
        .enum(['all', 'public', 'private'])
        .default('all')
        .describe('Which repositories to include by visibility. Default all.'),
      sort: z
        .enum(['created', 'updated', 'pushed', 'full_name'])
        .default('updated')
        .describe('Sort order: created, updated, pushed or full_name. Default updated.'),
      perPage: z
        .number()
        .int()
        .min(1)
        .max(100)
        .default(30)
        .describe('Repositories per page, 1 to 100. Default 30.'),
      page: z.number().int().min(1).default(1).describe('Page number, from 1. Default 1.'),
    }),
    outputSchema: z.object({
      repositories: z.array(
        z.object({
          fullName: z.string().describe('owner/name'),
          private: z.boolean(),
          description: z.string().nullable(),
          url: z.string().describe('The repository’s page on GitHub.'),
          defaultBranch: z.string(),
          updatedAt: z.string().describe('ISO 8601 time of the last update.'),
        }),
      ),
    }),
    authProvider: 'github',
    async handler(ctx, input, { signal }) {
      const token = await ctx.auth.getToken('github');
      ctx.logger.info('Listing repositories', { visibility: input.visibility, page: input.page });
      const repos = await api.request({
        method: 'GET',
        path: '/user/repos',
        query: {
          visibility: input.visibility,
          sort: input.sort,
          per_page: String(input.perPage),
          page: String(input.page),
        },
        token,
        signal,
        schema: upstreamRepos,
        notFound: 'GitHub could not find the signed-in user’s repositories.',
      });
      return {
        repositories: repos.map((repo) => ({
          fullName: repo.full_name,
          private: repo.private,
          description: repo.description,
          url: repo.html_url,
          defaultBranch: repo.default_branch,
          updatedAt: repo.updated_at,
        })),
      };
    },
  });
}
