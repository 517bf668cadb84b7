import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AuthRequiredError } from '@gateway/sdk';
import { createTestContext, runTool } from '@gateway/sdk/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import plugin, { listRepositories } from './index.js';

// A fake GitHub on a free local port: the tests need no network and no real token.
const requests: { url: string; authorization: string | undefined }[] = [];
const github = createServer((request, response) => {
  requests.push({ url: request.url ?? '', authorization: request.headers.authorization });
  if (request.headers.authorization !== 'Bearer gho_test') {
    response.writeHead(401, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ message: 'Bad credentials' }));
    return;
  }
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end(
    JSON.stringify([
      {
        name: 'notes',
        full_name: 'ada/notes',
        private: false,
        html_url: 'https://github.com/ada/notes',
        updated_at: '2025-01-02T03:04:05Z',
      },
    ]),
  );
});

beforeAll(async () => {
  github.listen(0, '127.0.0.1');
  await once(github, 'listening');
  const { port } = github.address() as AddressInfo;
  vi.stubEnv('GITHUB_API_URL', `http://127.0.0.1:${port}`);
});

afterAll(() => {
  vi.unstubAllEnvs();
  github.close();
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
    expect(requests.at(-1)).toEqual({
      url: '/user/repos?sort=updated&per_page=5',
      authorization: 'Bearer gho_test',
    });
  });

  it('asks the user to connect GitHub when no account is linked', async () => {
    const error = await runTool(listRepositories, {}).catch((caught: unknown) => caught);
    expect(AuthRequiredError.isInstance(error)).toBe(true);
  });

  it('tells the user to reconnect when GitHub rejects the token', async () => {
    const ctx = createTestContext({ plugin, tokens: { github: 'gho_revoked' } });
    await expect(runTool(listRepositories, {}, ctx)).rejects.toThrow('reconnect GitHub');
  });
});
