import { ApprovalDeniedError, AuthRequiredError, ToolError } from '@gateway/sdk';
import { createTestContext, runTool } from '@gateway/sdk/testing';
import { describe, expect, it } from 'vitest';
import { createGitHubApi } from '../api.js';
import { type Reply, startFakeUpstream } from '../testing/fake-upstream.js';
import { createIssueTool } from './create-issue.js';

const input = {
  owner: 'octocat',
  repo: 'hello-world',
  title: 'Crash on start',
  body: 'Steps to reproduce: ...',
  labels: ['bug'],
};

const created: Reply = {
  status: 201,
  body: {
    id: 1,
    number: 1347,
    html_url: 'https://github.com/octocat/hello-world/issues/1347',
    title: 'Crash on start',
    state: 'open',
  },
};

async function setup(reply: Reply = created) {
  const upstream = await startFakeUpstream(() => reply);
  return { upstream, tool: createIssueTool(createGitHubApi({ baseUrl: upstream.url })) };
}

describe('github.issues.create', () => {
  it('is marked destructive', async () => {
    const { tool } = await setup();
    expect(tool.destructive).toBe(true);
  });

  it('asks for approval, then POSTs the issue', async () => {
    const { upstream, tool } = await setup();
    const ctx = createTestContext({ tokens: { github: 'gho_test' }, approve: true });

    const result = await runTool(tool, input, ctx);

    expect(result).toEqual({
      number: 1347,
      url: 'https://github.com/octocat/hello-world/issues/1347',
      title: 'Crash on start',
      state: 'open',
    });
    expect(ctx.elicitations).toEqual([
      {
        toolPath: 'github.issues.create',
        message: 'Create an issue "Crash on start" in octocat/hello-world?',
        args: input,
      },
    ]);
    expect(upstream.requests).toHaveLength(1);
    const [request] = upstream.requests;
    expect(request?.method).toBe('POST');
    expect(request?.path).toBe('/repos/octocat/hello-world/issues');
    expect(request?.headers.authorization).toBe('Bearer gho_test');
    expect(request?.headers['content-type']).toBe('application/json');
    expect(request?.body).toEqual({
      title: 'Crash on start',
      body: 'Steps to reproduce: ...',
      labels: ['bug'],
    });
  });

  it('throws ApprovalDeniedError and posts nothing when the user declines', async () => {
    const { upstream, tool } = await setup();
    const ctx = createTestContext({ tokens: { github: 'gho_test' }, approve: false });

    const error = await runTool(tool, input, ctx).catch((e: unknown) => e);

    expect(ApprovalDeniedError.isInstance(error)).toBe(true);
    expect((error as ApprovalDeniedError).toolPath).toBe('github.issues.create');
    expect(ctx.elicitations).toHaveLength(1);
    expect(upstream.requests).toEqual([]);
  });

  it('does not ask for approval when GitHub is not connected', async () => {
    const { upstream, tool } = await setup();
    const ctx = createTestContext();

    const error = await runTool(tool, input, ctx).catch((e: unknown) => e);

    expect(AuthRequiredError.isInstance(error)).toBe(true);
    expect(ctx.elicitations).toEqual([]);
    expect(upstream.requests).toEqual([]);
  });

  it('reports GitHub’s validation message (422)', async () => {
    const { tool } = await setup({
      status: 422,
      body: {
        message: 'Validation Failed',
        errors: [{ resource: 'Issue', code: 'invalid', field: 'labels', message: 'bad label' }],
      },
    });
    const error = await runTool(
      tool,
      input,
      createTestContext({ tokens: { github: 'gho_test' } }),
    ).catch((e: unknown) => e);
    expect(ToolError.isInstance(error)).toBe(true);
    expect((error as Error).message).toBe(
      'GitHub did not accept the request: Validation Failed; bad label.',
    );
  });

  it('reports a repository it cannot see (404)', async () => {
    const { tool } = await setup({ status: 404, body: { message: 'Not Found' } });
    await expect(
      runTool(tool, input, createTestContext({ tokens: { github: 'gho_test' } })),
    ).rejects.toThrow('GitHub has no repository octocat/hello-world that this connection can see.');
  });

  it('rejects an owner that is not a GitHub login before asking anything', async () => {
    const ctx = createTestContext({ tokens: { github: 'gho_test' } });
    const { upstream, tool } = await setup();
    await expect(runTool(tool, { ...input, owner: '../admin' }, ctx)).rejects.toThrow(
      'Invalid input for github.issues.create',
    );
    expect(ctx.elicitations).toEqual([]);
    expect(upstream.requests).toEqual([]);
  });
});
