import { defineTool, requireApproval } from '@gateway/sdk';
import { z } from 'zod';
import type { GitHubApi } from '../api.js';

const upstreamIssue = z.object({
  number: z.number(),
  html_url: z.string(),
  title: z.string(),
  state: z.string(),
});

/** `github.issues.create`: opens an issue, after the user approves it. */
export function createIssueTool(api: GitHubApi) {
  return defineTool({
    path: 'github.issues.create',
    name: 'Create Issue',
    description:
      'Opens a new issue in a GitHub repository. The user is asked to approve the issue before ' +
      'it is created; nothing is posted if they decline.',
    inputSchema: z.object({
      owner: z
        .string()
        .regex(/^[A-Za-z0-9-]{1,39}$/)
        .describe('Repository owner: a user or organization login, e.g. "octocat".'),
      repo: z
        .string()
        .regex(/^[A-Za-z0-9._-]{1,100}$/)
        .describe('Repository name without the owner, e.g. "hello-world".'),
      title: z.string().trim().min(1).max(256).describe('Issue title, one line.'),
      body: z.string().max(65_536).optional().describe('Issue body in GitHub Markdown.'),
      labels: z
        .array(z.string().min(1).max(50))
        .max(20)
        .optional()
        .describe('Names of existing labels to add, e.g. ["bug"].'),
    }),
    outputSchema: z.object({
      number: z.number().describe('The issue number in its repository.'),
      url: z.string().describe('The issue’s page on GitHub.'),
      title: z.string(),
      state: z.string(),
    }),
    destructive: true,
    authProvider: 'github',
    async handler(ctx, input, { signal }) {
      const repository = `${input.owner}/${input.repo}`;
      // Fetching the token changes nothing, and failing here spares the user an approval for a
      // call that cannot succeed.
      const token = await ctx.auth.getToken('github');
      // Ask first, then act: a client may answer by retrying the call, which runs this handler
      // again from the top, so nothing above this line may change anything.
      await requireApproval(ctx, {
        toolPath: 'github.issues.create',
        message: `Create an issue "${input.title}" in ${repository}?`,
        args: input,
      });
      ctx.logger.info('Creating issue', { repository });
      const issue = await api.request({
        method: 'POST',
        path: `/repos/${encodeURIComponent(input.owner)}/${encodeURIComponent(input.repo)}/issues`,
        body: { title: input.title, body: input.body, labels: input.labels },
        token,
        signal,
        schema: upstreamIssue,
        notFound: `GitHub has no repository ${repository} that this connection can see.`,
      });
      return { number: issue.number, url: issue.html_url, title: issue.title, state: issue.state };
    },
  });
}
