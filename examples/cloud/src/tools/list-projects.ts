import { defineTool } from '@gateway/sdk';
import { z } from 'zod';
import type { GoogleCloudApi } from '../api.js';

const upstreamProjects = z.object({
  projects: z
    .array(
      z.object({
        name: z.string(),
        projectId: z.string(),
        displayName: z.string().optional(),
        state: z.string(),
        parent: z.string().optional(),
      }),
    )
    .default([]),
  nextPageToken: z.string().optional(),
});

/** `cloud.projects.list`: the Google Cloud projects the user can see. */
export function listProjectsTool(api: GoogleCloudApi) {
  return defineTool({
    path: 'cloud.projects.list',
    name: 'List Projects',
    description:
      'Lists the Google Cloud projects the signed-in user can see (Cloud Resource Manager ' +
      'projects.search), optionally filtered. Read-only; pass nextPageToken back as pageToken ' +
      'for more.',
    inputSchema: z.object({
      query: z
        .string()
        .max(500)
        .optional()
        .describe(
          'Resource Manager search filter, e.g. "state:ACTIVE" or "displayName:prod*". Leave out ' +
            'to list every project you can see.',
        ),
      pageSize: z
        .number()
        .int()
        .min(1)
        .max(100)
        .default(50)
        .describe('Projects per page, 1 to 100. Default 50.'),
      pageToken: z
        .string()
        .optional()
        .describe('The nextPageToken of a previous call, to fetch the next page.'),
    }),
    outputSchema: z.object({
      projects: z.array(
        z.object({
          projectId: z.string().describe('The project id used in other tools, e.g. "my-app-prod".'),
          projectNumber: z.string(),
          displayName: z.string().nullable(),
          state: z.string().describe('ACTIVE or DELETE_REQUESTED.'),
          parent: z.string().nullable().describe('e.g. "organizations/123" or "folders/456".'),
        }),
      ),
      nextPageToken: z.string().optional().describe('Present when more projects remain.'),
    }),
    authProvider: 'gcp',
    async handler(ctx, input, { signal }) {
      const token = await ctx.auth.getToken('gcp');
      ctx.logger.info('Searching projects', { query: input.query ?? null });
      const result = await api.get({
        service: 'resourceManager',
        path: '/v3/projects:search',
        query: {
          query: input.query,
          pageSize: String(input.pageSize),
          pageToken: input.pageToken,
        },
        token,
        signal,
        schema: upstreamProjects,
        notFound: 'Google Cloud could not find the project search endpoint.',
      });
      return {
        projects: result.projects.map((project) => ({
          projectId: project.projectId,
          projectNumber: project.name.replace(/^projects\//, ''),
          displayName: project.displayName ?? null,
          state: project.state,
          parent: project.parent ?? null,
        })),
        ...(result.nextPageToken ? { nextPageToken: result.nextPageToken } : {}),
      };
    },
  });
}
