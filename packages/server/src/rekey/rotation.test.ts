/**
 * Rotating AUTH_SECRET end to end (issue 14 items 3 and 4), on a SQLite file and on PostgreSQL:
 * secrets stored under A keep decrypting and vending over real HTTP once the gateway runs on B with
 * `GATEWAY_PREVIOUS_AUTH_SECRETS=A`; `gateway-server rekey` (the real bin, as a child process)
 * rewrites them under B, and a second run changes nothing; then B alone serves them all. A secret
 * no configured key opens answers `secret_unreadable` on decrypt, fails the tool call with that
 * message, and never hands the tool the server's `<UPPER>_API_KEY` instead.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { definePlugin, defineTool } from '@gateway/sdk';
import { symmetricEncrypt } from 'better-auth/crypto';
import { describe, expect, it, onTestFinished } from 'vitest';
import { z } from 'zod';
import { createPostgresTestDatabase, postgresTestUrl } from '#test/db/test-database.js';
import { connectV1 } from '#test/mcp/mcp-test-kit.js';
import { rememberSecret } from '#test/support/known-secrets.js';
import { startBin } from '#test/support/run-bin.js';
import { createTestGateway, TEST_SERVICE_SECRET } from '#test/support/test-gateway.js';
import { secretVersion } from '../auth/index.js';
import { createEndpoint } from '../mcp-endpoints/index.js';
import { createSecretBox } from '../secrets/index.js';

const SECRET_A = 'rotation-secret-A-0123456789abcdefghij';
const SECRET_B = 'rotation-secret-B-9876543210zyxwvutsrq';
const UNKNOWN = 'rotation-secret-nobody-configured-0123456';
const JIRA_KEY = 'alice-jira-key-7f3a9c21e4';
const WIKI_KEY = 'team-wiki-key-5b8d0e61f2';
const SERVER_JIRA_KEY = 'server-jira-key-c4e2a7b913';
const LEGACY_TOKEN = 'linear-access-legacy-91ab3c';
const ENVELOPE_TOKEN = 'linear-access-envelope-27de4f';
for (const secret of [UNKNOWN, JIRA_KEY, WIKI_KEY, SERVER_JIRA_KEY, LEGACY_TOKEN, ENVELOPE_TOKEN]) {
  rememberSecret(secret);
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** Hands back a digest of the vended credential: which one it was, without showing it. */
const vault = definePlugin({
  id: 'vault',
  name: 'Vault',
  description: 'Tells which credential a provider vends.',
  authProviders: [
    { id: 'jira', type: 'api_key', provider: 'jira', scopes: [] },
    { id: 'wiki', type: 'api_key', provider: 'wiki', scopes: [] },
    { id: 'linear', type: 'oauth2', provider: 'linear', scopes: [] },
  ],
  tools: [
    defineTool({
      path: 'vault.token.digest',
      name: 'Token Digest',
      description: 'The SHA-256 of the credential vended for a provider.',
      inputSchema: z.object({ provider: z.enum(['jira', 'wiki', 'linear']) }),
      outputSchema: z.object({ sha256: z.string() }),
      async handler(ctx, { provider }) {
        return { sha256: sha256(await ctx.auth.getToken(provider)) };
      },
    }),
  ],
});

interface Storage {
  name: string;
  skip: boolean;
  /** A database URL that several gateways and processes may open one after another. */
  create(): Promise<string>;
}

const pgUrl = postgresTestUrl();
const storages: Storage[] = [
  {
    name: 'SQLite file',
    skip: false,
    async create() {
      const dir = await mkdtemp(join(tmpdir(), 'gateway-rotation-'));
      onTestFinished(() => rm(dir, { recursive: true, force: true }));
      return join(dir, 'gateway.db');
    },
  },
  {
    name: 'PostgreSQL',
    skip: pgUrl === undefined,
    async create() {
      const { url, database, drop } = await createPostgresTestDatabase(pgUrl ?? '');
      await database.close();
      onTestFinished(drop);
      return url;
    },
  },
];

/** A gateway on `databaseUrl` serving the vault plugin over real HTTP. */
async function serve(databaseUrl: string, authSecret: string, previousAuthSecrets: string[]) {
  const gateway = await createTestGateway({
    databaseUrl,
    authSecret,
    previousAuthSecrets,
    plugins: [vault],
    env: { JIRA_API_KEY: SERVER_JIRA_KEY, WIKI_API_KEY: SERVER_JIRA_KEY },
    host: '127.0.0.1',
    port: 0,
    baseUrl: undefined,
  });
  if (!gateway.services.plugins.isMounted('vault')) {
    gateway.services.plugins.mount({ id: 'vault', namespace: 'vault', pluginId: 'vault' });
  }
  const { url } = await gateway.start();
  return { gateway, url };
}

async function decrypt(url: string, id: string) {
  const res = await fetch(`${url}/api/connections/${id}/decrypt`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_SERVICE_SECRET}` },
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function digest(url: string, mcpToken: string, provider: 'jira' | 'wiki' | 'linear') {
  const { client } = await connectV1(url, mcpToken);
  const result = await client.callTool({ name: 'vault.token.digest', arguments: { provider } });
  await client.close();
  return result as {
    isError?: boolean;
    structuredContent?: { sha256: string };
    content: { type: string; text?: string }[];
  };
}

function rekeyEnv(databaseUrl: string, previous?: string): Record<string, string> {
  return {
    AUTH_SECRET: SECRET_B,
    DATABASE_URL: databaseUrl,
    ...(previous === undefined ? {} : { GATEWAY_PREVIOUS_AUTH_SECRETS: previous }),
  };
}

for (const storage of storages) {
  describe.skipIf(storage.skip)(`AUTH_SECRET rotation on ${storage.name}`, () => {
    it('keeps every secret readable from A to B, rekeys them under B, then serves them on B alone', async () => {
      const databaseUrl = await storage.create();

      // Under A: a user connection, a team connection and two OAuth accounts, one stored as
      // better-auth wrote it before versioned secrets (bare hex), one in the versioned envelope.
      const a = await serve(databaseUrl, SECRET_A, []);
      await a.gateway.services.policy.createRole({
        id: 'vaulters',
        name: 'Vaulters',
        patterns: ['vault.**'],
      });
      const alice = await a.gateway.createUser({ roleId: 'vaulters' });
      const bob = await a.gateway.createUser({ roleId: 'vaulters' });
      const admin = await a.gateway.createUser({ admin: true });
      const own = await a.gateway.request('POST', '/api/connections', {
        as: alice,
        body: { userId: alice.id, toolId: 'jira', instanceName: 'Work', secret: JIRA_KEY },
      });
      expect(own.status).toBe(201);
      const ownId = ((await own.json()) as { id: string }).id;
      const team = await a.gateway.request('POST', '/api/team/connections', {
        as: admin,
        body: { toolId: 'wiki', instanceName: 'Shared', secret: WIKI_KEY },
      });
      expect(team.status).toBe(201);
      const teamId = ((await team.json()) as { id: string }).id;
      const contextA = await (await a.gateway.services.auth.instance()).$context;
      const legacy = await symmetricEncrypt({ key: SECRET_A, data: LEGACY_TOKEN });
      const envelope = await symmetricEncrypt({ key: contextA.secretConfig, data: ENVELOPE_TOKEN });
      expect(envelope.startsWith(`$ba$${secretVersion(SECRET_A)}$`)).toBe(true);
      const now = new Date();
      const later = new Date(Date.now() + 3_600_000);
      for (const [user, accessToken] of [
        [alice, legacy],
        [bob, envelope],
      ] as const) {
        await a.gateway.services.database.db
          .insertInto('account')
          .values({
            id: crypto.randomUUID(),
            accountId: `linear-${user.id}`,
            providerId: 'linear',
            userId: user.id,
            accessToken,
            refreshToken: null,
            idToken: null,
            accessTokenExpiresAt: later,
            refreshTokenExpiresAt: null,
            scope: null,
            password: null,
            createdAt: now,
            updatedAt: now,
          })
          .execute();
      }
      const endpoint = async (userId: string) => {
        const created = await createEndpoint(a.gateway.services.database.db, {
          userId,
          name: 'mcp',
        });
        if (!created.ok) throw new Error(created.problem);
        rememberSecret(created.endpoint.token);
        return created.endpoint.token;
      };
      const aliceMcp = await endpoint(alice.id);
      const bobMcp = await endpoint(bob.id);
      await a.gateway.stop();

      /** Every stored secret decrypts and vends, over HTTP and MCP, on `url`. */
      const expectAllServed = async (url: string) => {
        expect(await decrypt(url, ownId)).toEqual({
          status: 200,
          body: { id: ownId, secret: JIRA_KEY },
        });
        expect(await decrypt(url, teamId)).toEqual({
          status: 200,
          body: { id: teamId, secret: WIKI_KEY },
        });
        expect((await digest(url, aliceMcp, 'jira')).structuredContent).toEqual({
          sha256: sha256(JIRA_KEY),
        });
        expect((await digest(url, aliceMcp, 'wiki')).structuredContent).toEqual({
          sha256: sha256(WIKI_KEY),
        });
        expect((await digest(url, aliceMcp, 'linear')).structuredContent).toEqual({
          sha256: sha256(LEGACY_TOKEN),
        });
        expect((await digest(url, bobMcp, 'linear')).structuredContent).toEqual({
          sha256: sha256(ENVELOPE_TOKEN),
        });
      };

      // B, with A as the previous secret: everything still decrypts and vends.
      const b = await serve(databaseUrl, SECRET_B, [SECRET_A]);
      await expectAllServed(b.url);
      // Stored under A still, until rekey.
      const stored = () =>
        b.gateway.services.database.db
          .selectFrom('connections')
          .select(['id', 'encrypted_secret'])
          .execute();
      for (const row of await stored()) {
        expect(() => createSecretBox(SECRET_B).decrypt(row.encrypted_secret)).toThrow();
      }

      // rekey, while the gateway on B keeps serving.
      const first = await startBin(rekeyEnv(databaseUrl, SECRET_A), ['rekey']);
      expect(await first.exited, first.output.stderr).toBe(0);
      expect(first.output.stdout).toBe(
        [
          'connections: 1 rewritten, 0 already under the current secret, 0 unreadable',
          'team connections: 1 rewritten, 0 already under the current secret, 0 unreadable',
          // The two linear accounts: users made by the test helper have no account rows.
          'oauth tokens: 2 rewritten, 0 already under the current secret, 0 unreadable',
          'provider clients: 0 rewritten, 0 already under the current secret, 0 unreadable',
          'upstream oauth clients: 0 rewritten, 0 already under the current secret, 0 unreadable',
          'Every stored secret is under the current AUTH_SECRET: GATEWAY_PREVIOUS_AUTH_SECRETS may now be removed.',
          '',
        ].join('\n'),
      );
      for (const row of await stored()) {
        expect(createSecretBox(SECRET_B).decrypt(row.encrypted_secret)).toMatch(/key/);
      }
      const tokens = await b.gateway.services.database.db
        .selectFrom('account')
        .select('accessToken')
        .execute();
      for (const { accessToken } of tokens) {
        expect(accessToken?.startsWith(`$ba$${secretVersion(SECRET_B)}$`)).toBe(true);
      }

      // Idempotent: a second run changes nothing.
      const second = await startBin(rekeyEnv(databaseUrl, SECRET_A), ['rekey']);
      expect(await second.exited, second.output.stderr).toBe(0);
      expect(second.output.stdout).toContain(
        'connections: 0 rewritten, 1 already under the current secret, 0 unreadable\n',
      );
      expect(second.output.stdout).toContain('team connections: 0 rewritten, 1 already');
      expect(second.output.stdout).toContain('oauth tokens: 0 rewritten, 2 already');
      await b.gateway.stop();

      // B alone: everything still decrypts and vends.
      const c = await serve(databaseUrl, SECRET_B, []);
      await expectAllServed(c.url);

      // A row under a key nobody configured: 409 secret_unreadable, a tool error, no server key.
      await c.gateway.services.database.db
        .updateTable('connections')
        .set({ encrypted_secret: createSecretBox(UNKNOWN).encrypt(JIRA_KEY) })
        .where('id', '=', ownId)
        .execute();
      const refused = await decrypt(c.url, ownId);
      expect(refused.status).toBe(409);
      expect(refused.body).toEqual({
        error: {
          code: 'secret_unreadable',
          message: expect.stringContaining(`connection ${ownId} cannot be decrypted`),
          details: { connectionId: ownId },
        },
      });
      const failed = await digest(c.url, aliceMcp, 'jira');
      expect(failed.isError).toBe(true);
      expect(failed.structuredContent).toBeUndefined();
      const text = failed.content.map((part) => part.text ?? '').join('\n');
      expect(text).toContain(`connection ${ownId} cannot be decrypted`);
      expect(text).toContain('GATEWAY_PREVIOUS_AUTH_SECRETS');
      expect(JSON.stringify(failed)).not.toContain(sha256(SERVER_JIRA_KEY));
      // Rekey names the row it cannot open, and fails.
      const stuck = await startBin(rekeyEnv(databaseUrl), ['rekey']);
      expect(await stuck.exited).toBe(1);
      expect(stuck.output.stdout).toContain(
        'connections: 0 rewritten, 0 already under the current secret, 1 unreadable\n',
      );
      expect(stuck.output.stderr).toMatch(
        new RegExp(
          `gateway-server: 1 stored secret cannot be decrypted with AUTH_SECRET or GATEWAY_PREVIOUS_AUTH_SECRETS: connections ${ownId};`,
        ),
      );
      for (const output of [first.output, second.output, stuck.output]) {
        for (const secret of [
          SECRET_A,
          SECRET_B,
          JIRA_KEY,
          WIKI_KEY,
          LEGACY_TOKEN,
          ENVELOPE_TOKEN,
        ]) {
          expect(output.stdout + output.stderr).not.toContain(secret);
        }
      }
    }, 180_000);
  });
}
