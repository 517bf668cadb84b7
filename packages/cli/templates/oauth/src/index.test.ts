import { AuthRequiredError } from '@gateway/sdk';
import { createTestContext, runTool, startFakeUpstream } from '@gateway/sdk/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import plugin, { listRepositories } from './index.js';

// A fake GitHub on a free local port (a real HTTP server on 127.0.0.1): the tests need no network
// and no real token. Each request is kept in `github.requests`.
let github: Awaited<ReturnType<typeof startFakeUpstream>>;

beforeAll(async () => {
  github = await startFakeUpstream((request) => {
    if (request.headers.authorization !== 'Bearer gho_test') {
      return { status: 401, body: { message: 'Bad credentials' } };
    }
    return {
      body: [
        {
          name: 'notes',
          full_name: 'ada/notes',
          private: false,
          html_url: 'https://github.com/ada/notes',
          updated_at: '2025-01-02T03:04:05Z',
        },
      ],
    };
  });
  vi.stubEnv('GITHUB_API_URL', github.url);
});

afterAll(async () => {
  vi.unstubAllEnvs();
  await github.close();
});

describe('{{id}}', () => {
  it('keeps every tool under its plugin id', () => {
    expect(plugin.tools.map((tool) => tool.path)).toEqual(['{{id}}.repos.list']);
  });

  it("lists the user's repositories with their GitHub token", async () => {
    const ctx = createTestContext({ plugin, tokens: { github: 'gho_test' } });
    await expect(runTool(listRepositories, { limit: 5 }, ctx)).resolves.toEqual({
      repositories: [
        {
          name: 'notes',
          fullName: 'ada/notes',
          private: false,
          url: 'https://github.com/ada/notes',
          updatedAt: '2025-01-02T03:04:05Z',
        },
      ],
    });
    const last = github.requests.at(-1);
    expect(`${last?.path}?${last?.query}`).toBe('/user/repos?sort=updated&per_page=5');
    expect(last?.headers.authorization).toBe('Bearer gho_test');
  });

  it('asks the user to connect GitHub when no account is linked', async () => {
    const error = await runTool(listRepositories, {}).catch((caught: unknown) => caught);
    expect(AuthRequiredError.isInstance(error)).toBe(true);
  });

  it('asks the user to reconnect GitHub when it rejects the token, never showing it', async () => {
    const ctx = createTestContext({ plugin, tokens: { github: 'gho_revoked' } });
    const error = await runTool(listRepositories, {}, ctx).catch((caught: unknown) => caught);
    expect(AuthRequiredError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain('Reconnect it');
    expect((error as Error).message).not.toContain('gho_revoked');
  });
});
