import { defineTool } from '@gateway/sdk';
import { z } from 'zod';
import type { GoogleCloudApi } from '../api.js';

const upstreamBuckets = z.object({
  items: z
    .array(
      z.object({
        name: z.string(),
        location: z.string(),
        storageClass: z.string(),
        timeCreated: z.string(),
      }),
    )
    .default([]),
  nextPageToken: z.string().optional(),
});

/** `cloud.storage.buckets_list`: the Cloud Storage buckets of one project. */
export function listBucketsTool(api: GoogleCloudApi) {
  return defineTool({
    path: 'cloud.storage.buckets_list',
    name: 'List Storage Buckets',
    description:
      'Lists the Cloud Storage buckets of a Google Cloud project, with location and storage ' +
      'class. Read-only; find project ids with cloud.projects.list.',
    inputSchema: z.object({
      projectId: z
        .string()
        .regex(/^[a-z][a-z0-9-]{4,28}[a-z0-9]$/, 'must be a Google Cloud project id')
        .describe('The project id (not its name or number), e.g. "my-app-prod".'),
      prefix: z.string().max(222).optional().describe('Only buckets whose name starts with this.'),
      maxResults: z
        .number()
        .int()
        .min(1)
        .max(1000)
        .default(100)
        .describe('Buckets per page, 1 to 1000. Default 100.'),
      pageToken: z
        .string()
        .optional()
        .describe('The nextPageToken of a previous call, to fetch the next page.'),
    }),
    outputSchema: z.object({
      buckets: z.array(
        z.object({
          name: z.string(),
          location: z.string().describe('e.g. "US", "EU" or "EUROPE-NORTH1".'),
          storageClass: z.string().describe('e.g. STANDARD, NEARLINE, COLDLINE or ARCHIVE.'),
          createdAt: z.string().describe('ISO 8601 creation time.'),
        }),
      ),
      nextPageToken: z.string().optional().describe('Present when more buckets remain.'),
    }),
    authProvider: 'gcp',
    async handler(ctx, input, { signal }) {
      const token = await ctx.auth.getToken('gcp');
      ctx.logger.info('Listing buckets', { projectId: input.projectId });
      const result = await api.get({
        service: 'storage',
        path: '/storage/v1/b',
        query: {
          project: input.projectId,
          prefix: input.prefix,
          maxResults: String(input.maxResults),
          pageToken: input.pageToken,
        },
        token,
        signal,
        schema: upstreamBuckets,
        notFound: `Google Cloud has no project "${input.projectId}" that you can see.`,
      });
      return {
        buckets: result.items.map((bucket) => ({
          name: bucket.name,
          location: bucket.location,
          storageClass: bucket.storageClass,
          createdAt: bucket.timeCreated,
        })),
        ...(result.nextPageToken ? { nextPageToken: result.nextPageToken } : {}),
      };
    },
  });
}
