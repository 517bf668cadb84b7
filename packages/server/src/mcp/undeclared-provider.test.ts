/**
 * Issue 14, item 1: a plugin that declared only `weather` and `gh` called
 * `ctx.auth.getToken('github')` and `getToken('slack')` and received the user's stored GitHub
 * and Slack secrets. A tool now gets credentials only for the providers its plugin declares;
 * anything else is a clear tool error, over real HTTP and MCP, with no source consulted.
 */
import { definePlugin, defineTool, type Plugin } from '@gateway/sdk';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { z } from 'zod';
import { createPostgresTestDatabase, postgresTestUrl } from '#test/db/test-database.js';
import { connectV1, connectV2, type McpTestUser, startMcpGateway } from '#test/mcp/mcp-test-kit.js';
import { rememberSecret } from '#test/support/known-secrets.js';

const WEATHER_KEY = 'weather-key-7f3a';
const GITHUB_SECRET = 'ghp_usersOwnGithubToken0123456789';
const SLACK_SECRET = 'xoxb-users-own-slack-token-4242';
const TEAM_SLACK_SECRET = 'xoxb-team-slack-token-9090';
const SERVER_KEY = 'server-key-5151';

/** The probe: a weather plugin whose tool asks for whatever provider it is told to. */
function probePlugin(): Plugin {
  return definePlugin({
    id: 'weather',
    name: 'Weather',
    description: 'Forecasts, and a probe that asks for credentials.',
    authProviders: [
      { id: 'weather', type: 'api_key', provider: 'weather', scopes: [] },
      { id: 'gh', type: 'oauth2', provider: 'github', scopes: [] },
    ],
    tools: [
      defineTool({
        path: 'weather.probe.token',
        name: 'Probe Token',
        description: 'Asks for a credential of the provider given.',
        inputSchema: z.object({ provider: z.string() }),
        outputSchema: z.object({ provider: z.string(), keyEnding: z.string() }),
        async handler(ctx, { provider }) {
          const token = await ctx.auth.getToken(provider);
          return { provider, keyEnding: token.slice(-4) };
        },
      }),
    ],
  });
}

function refusal(provider: string): string {
  return `Plugin "weather" asked for a credential of "${provider}", which it does not declare: add { id: "${provider}", ... } to authProviders in definePlugin()`;
}

async function post(url: string, path: string, as: McpTestUser, body: unknown): Promise<Response> {
  return fetch(`${url}${path}`, {
    method: 'POST',
    headers: { ...as.headers, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

const pgUrl = postgresTestUrl();

/**
 * A gateway (on in-memory SQLite, or a fresh PostgreSQL schema) with the probe; a user who has
 * connected GitHub, Slack and the weather service through the API; a team Slack connection; and
 * server keys for GitHub and Slack.
 */
async function probeWorld(database: 'sqlite' | 'postgres') {
  let databaseUrl: string | undefined;
  if (database === 'postgres') {
    const scoped = await createPostgresTestDatabase(pgUrl as string);
    onTestFinished(scoped.drop);
    databaseUrl = scoped.url;
  }
  for (const secret of [WEATHER_KEY, GITHUB_SECRET, SLACK_SECRET, TEAM_SLACK_SECRET]) {
    rememberSecret(secret);
  }
  rememberSecret(SERVER_KEY);
  const mcp = await startMcpGateway({
    ...(databaseUrl === undefined ? {} : { databaseUrl }),
    plugins: [probePlugin()],
    env: { GITHUB_API_KEY: SERVER_KEY, SLACK_API_KEY: SERVER_KEY },
  });
  await mcp.gateway.services.policy.createRole({
    id: 'prober',
    name: 'Prober',
    patterns: ['weather.**'],
  });
  const admin = await mcp.user({ admin: true });
  const alice = await mcp.user({ roleId: 'prober' });
  for (const [toolId, secret] of [
    ['github', GITHUB_SECRET],
    ['slack', SLACK_SECRET],
    ['weather', WEATHER_KEY],
  ] as const) {
    const created = await post(mcp.url, '/api/connections', alice, {
      userId: alice.id,
      toolId,
      instanceName: 'Work',
      secret,
    });
    expect(created.status).toBe(201);
  }
  const team = await post(mcp.url, '/api/team/connections', admin, {
    toolId: 'slack',
    instanceName: 'Team',
    secret: TEAM_SLACK_SECRET,
  });
  expect(team.status).toBe(201);
  return { mcp, alice };
}

/** The text parts of a tool result (the v1 client's type also admits a legacy `toolResult`). */
function textOf(result: object): string {
  const content = 'content' in result && Array.isArray(result.content) ? result.content : [];
  return content
    .map((part: unknown) =>
      typeof part === 'object' && part !== null && 'text' in part ? String(part.text) : '',
    )
    .join('\n');
}

const SECRETS = [GITHUB_SECRET, SLACK_SECRET, TEAM_SLACK_SECRET, SERVER_KEY];

for (const database of ['sqlite', 'postgres'] as const) {
  describe.skipIf(database === 'postgres' && !pgUrl)(
    `a tool asking for a provider its plugin does not declare (${database})`,
    () => {
      it('gets a clear tool error over MCP (2025 and 2026-07-28), and nothing is decrypted for it', async () => {
        const { mcp, alice } = await probeWorld(database);
        const decrypt = vi.spyOn(mcp.gateway.services.secrets, 'decrypt');
        const { client: v1 } = await connectV1(mcp.url, alice.mcpToken);
        const v2 = await connectV2(mcp.url, alice.mcpToken);

        for (const provider of ['github', 'slack']) {
          for (const call of [v1.callTool.bind(v1), v2.callTool.bind(v2)]) {
            const result = await call({ name: 'weather.probe.token', arguments: { provider } });
            expect(result.isError).toBe(true);
            expect(textOf(result)).toBe(refusal(provider));
            expect(result.structuredContent).toBeUndefined();
          }
        }
        // Neither the user's stored GitHub or Slack connection nor the team one was read.
        expect(decrypt).not.toHaveBeenCalled();

        // The declared provider still serves, from the user's connection.
        const ok = await v2.callTool({
          name: 'weather.probe.token',
          arguments: { provider: 'weather' },
        });
        expect(ok.isError).toBeFalsy();
        expect(ok.structuredContent).toEqual({
          provider: 'weather',
          keyEnding: WEATHER_KEY.slice(-4),
        });
        expect(decrypt).toHaveBeenCalledTimes(1);

        // A value no plugin could declare (a secret passed by mistake) is refused without echo.
        const mistaken = await v2.callTool({
          name: 'weather.probe.token',
          arguments: { provider: 'ghp_NotAProviderId0123456789abcdef' },
        });
        expect(mistaken.isError).toBe(true);
        expect(textOf(mistaken)).toContain('provider id that is not valid');
        expect(textOf(mistaken)).not.toContain('ghp_NotAProviderId');
        expect(mcp.gateway.logs()).not.toContain('ghp_NotAProviderId');

        // Declared but not connected: the usual "connect it" answer, not the refusal.
        const gh = await v2.callTool({
          name: 'weather.probe.token',
          arguments: { provider: 'gh' },
        });
        expect(gh.isError).toBe(true);
        // The id the CLI takes: the OAuth provider the entry names, not the plugin's (issue 39).
        expect(textOf(gh)).toContain('`gateway connect github`');
        expect(textOf(gh)).not.toContain('`gateway connect gh`');
      });

      it('is recorded as an error with the refusal, and no secret reaches answers or logs', async () => {
        const { mcp, alice } = await probeWorld(database);
        const v2 = await connectV2(mcp.url, alice.mcpToken);
        await v2.callTool({ name: 'weather.probe.token', arguments: { provider: 'github' } });

        const listed = await fetch(`${mcp.url}/api/executions?userId=${alice.id}`, {
          headers: alice.headers,
        });
        expect(listed.status).toBe(200);
        const body = await listed.text();
        const { executions } = JSON.parse(body) as {
          executions: { toolPath: string; outcome: string; error: string | null }[];
        };
        expect(executions[0]).toMatchObject({
          toolPath: 'weather.probe.token',
          outcome: 'error',
          error: refusal('github'),
        });
        const logs = mcp.gateway.logs();
        expect(logs).toContain('tool asked for a credential its plugin does not declare');
        for (const secret of SECRETS) {
          expect(body).not.toContain(secret);
          expect(logs).not.toContain(secret);
        }
      });

      it('is refused over a raw 2026-07-28 HTTP call with a 200 tool error, never a 5xx', async () => {
        const { mcp, alice } = await probeWorld(database);
        const response = await fetch(`${mcp.url}/mcp`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${alice.mcpToken}`,
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'mcp-protocol-version': '2026-07-28',
            'mcp-method': 'tools/call',
            'mcp-name': 'weather.probe.token',
          },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'tools/call',
            params: {
              name: 'weather.probe.token',
              arguments: { provider: 'slack' },
              _meta: {
                'io.modelcontextprotocol/protocolVersion': '2026-07-28',
                'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
                'io.modelcontextprotocol/clientCapabilities': {},
              },
            },
          }),
        });
        expect(response.status).toBe(200);
        const text = await response.text();
        expect(text).toContain(JSON.stringify(refusal('slack')).slice(1, -1));
        expect(text).toContain('"isError":true');
        for (const secret of SECRETS) expect(text).not.toContain(secret);
      });
    },
  );
}
