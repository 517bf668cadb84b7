import { AuthRequiredError, ToolError } from '@gateway/sdk';
import { createTestContext, runTool } from '@gateway/sdk/testing';
import { describe, expect, it } from 'vitest';
import { createGitHubApi } from '../api.js';
import { startFakeUpstream } from '../testing/fake-upstream.js';
import { listReposTool } from './list-repos.js';

const repos = [
  {
    id: 1296269,
    full_name: 'octocat/hello-world',
    private: false,
    description: 'My first repository',
    html_url: 'https://github.com/octocat/hello-world',
    default_branch: 'main',
    updated_at: '2026-02-01T10:00:00Z',
    stargazers_count: 80,
  },
  {
    id: 1296270,
    full_name: 'octocat/secret-plans',
    private: true,
    description: null,
    html_url: 'https://github.com/octocat/secret-plans',
    default_branch: 'trunk',
    updated_at: '2026-01-15T08:30:00Z',
    stargazers_count: 0,
  },
];

describe('github.repos.list', () => {
  it('calls GET /user/repos with the OAuth token and maps the repositories', async () => {
    const upstream = await startFakeUpstream(() => ({ body: repos }));
    const tool = listReposTool(createGitHubApi({ baseUrl: upstream.url }));
    const ctx = createTestContext({ tokens: { github: 'gho_test' } });

    const result = await runTool(tool, { visibility: 'private', perPage: 50 }, ctx);

    expect(result.repositories).toEqual([
      {
        fullName: 'octocat/hello-world',
        private: false,
        description: 'My first repository',
        url: 'https://github.com/octocat/hello-world',
        defaultBranch: 'main',
        updatedAt: '2026-02-01T10:00:00Z',
      },
      {
        fullName: 'octocat/secret-plans',
        private: true,
        description: null,
        url: 'https://github.com/octocat/secret-plans',
        defaultBranch: 'trunk',
        updatedAt: '2026-01-15T08:30:00Z',
      },
    ]);
    const [request] = upstream.requests;
    expect(request?.method).toBe('GET');
    expect(request?.path).toBe('/user/repos');
    expect(request?.headers.authorization).toBe('Bearer gho_test');
    expect(request?.headers.accept).toBe('application/vnd.github+json');
    expect(request?.headers['user-agent']).toBeTruthy();
    expect(Object.fromEntries(request?.query ?? [])).toEqual({
      visibility: 'private',
      sort: 'updated',
      per_page: '50',
      page: '1',
    });
  });

  it('tells the user to reconnect when GitHub rejects the token (401)', async () => {
    const upstream = await startFakeUpstream(() => ({
      status: 401,
      body: { message: 'Bad credentials' },
    }));
    const tool = listReposTool(createGitHubApi({ baseUrl: upstream.url }));
    const error = await runTool(tool, {}, createTestContext({ tokens: { github: 'old' } })).catch(
      (e: unknown) => e,
    );
    expect(ToolError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain('gateway connect github');
  });

  it('throws AuthRequiredError without calling GitHub when nothing is connected', async () => {
    const upstream = await startFakeUpstream(() => ({ body: repos }));
    const tool = listReposTool(createGitHubApi({ baseUrl: upstream.url }));
    const error = await runTool(tool, {}, createTestContext()).catch((e: unknown) => e);
    expect(AuthRequiredError.isInstance(error)).toBe(true);
    expect(upstream.requests).toEqual([]);
  });

  it('rejects a page size GitHub would not accept', async () => {
    await expect(runTool(listReposTool(createGitHubApi()), { perPage: 500 })).rejects.toThrow(
      'Invalid input for github.repos.list',
    );
  });
});
