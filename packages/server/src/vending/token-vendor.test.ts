import { AuthRequiredError, ToolError, UndeclaredProviderError } from '@gateway/sdk';
import { decryptOAuthToken } from 'better-auth/oauth2';
import { describe, expect, it, vi } from 'vitest';
import {
  browser,
  gatewayTargets,
  genericProviderEnv,
  oauthSignIn,
  startMockProvider,
} from '#test/auth/oauth-test-kit.js';
import type { TestGateway } from '#test/support/test-gateway.js';
import type { ConnectionOwner } from '../connections/tables.js';
import { createSecretBox, maskSecret, SecretUnreadableError } from '../secrets/index.js';

const ORIGIN = 'http://127.0.0.1:8787';

async function addConnection(
  gw: TestGateway,
  input: {
    userId: string;
    owner?: ConnectionOwner;
    toolId: string;
    instanceName?: string;
    secret: string;
    updatedAt?: string;
    parentId?: string;
  },
): Promise<string> {
  const id = crypto.randomUUID();
  const at = input.updatedAt ?? new Date().toISOString();
  await gw.services.database.db
    .insertInto('connections')
    .values({
      id,
      user_id: input.userId,
      owner: input.owner ?? 'user',
      tool_id: input.toolId,
      instance_name: input.instanceName ?? 'Default',
      description: null,
      encrypted_secret: gw.services.secrets.encrypt(input.secret),
      masked_secret: maskSecret(input.secret),
      workspace_id: null,
      parent_id: input.parentId ?? null,
      created_at: at,
      updated_at: at,
    })
    .execute();
  return id;
}

/** Signs a user in with the cloud-platform provider, so they hold a `gcp` OAuth account. */
async function signInWithGcp(gw: TestGateway): Promise<string> {
  const landed = await oauthSignIn(browser(gw.fetch, ORIGIN), 'gcp');
  expect(landed.searchParams.get('error')).toBeNull();
  const user = await gw.services.database.db
    .selectFrom('account')
    .select('userId')
    .where('providerId', '=', 'gcp')
    .executeTakeFirstOrThrow();
  return user.userId;
}

async function expireAccessToken(gw: TestGateway, userId: string) {
  await gw.services.database.db
    .updateTable('account')
    .set({ accessTokenExpiresAt: new Date(Date.now() - 60_000) })
    .where('userId', '=', userId)
    .execute();
}

async function storedRefreshToken(gw: TestGateway, userId: string): Promise<string> {
  const row = await gw.services.database.db
    .selectFrom('account')
    .select('refreshToken')
    .where('userId', '=', userId)
    .executeTakeFirstOrThrow();
  return decryptOAuthToken(
    row.refreshToken ?? '',
    await (await gw.services.auth.instance()).$context,
  );
}

const cloud = { id: 'google', type: 'oauth2', provider: 'gcp', scopes: [] } as const;

for (const target of gatewayTargets()) {
  describe.skipIf(target.skip)(`token vending order on ${target.name}`, () => {
    /** A gateway with the cloud-platform provider, and a user signed in with it (an OAuth account). */
    async function withOAuthUser(env: Record<string, string> = {}) {
      const idp = await startMockProvider({
        claims: { sub: `gcp-${crypto.randomUUID()}`, email: 'ada@example.test' },
      });
      const gw = await target.create({ env: { ...genericProviderEnv('gcp', idp), ...env } });
      const userId = await signInWithGcp(gw);
      return { idp, gw, userId };
    }

    it("uses the user's own connection first, ahead of a team connection and their OAuth account", async () => {
      const { idp, gw, userId } = await withOAuthUser({ GOOGLE_API_KEY: 'server-key' });
      const admin = await gw.createUser({ admin: true });
      await addConnection(gw, {
        userId: admin.id,
        owner: 'team',
        toolId: 'google',
        secret: 'team-key',
      });
      await addConnection(gw, { userId, toolId: 'google', secret: 'own-key' });
      // The OAuth account is there and would serve.
      expect(idp.issuedAccessTokens).toHaveLength(1);

      expect(await gw.services.tokens.vend(userId, 'google', { authProvider: cloud })).toEqual({
        token: 'own-key',
        source: 'connection',
      });
    });

    it("serves a team connection ahead of the user's OAuth account, and the OAuth account after it", async () => {
      const { idp, gw, userId } = await withOAuthUser({ GOOGLE_API_KEY: 'server-key' });
      const admin = await gw.createUser({ admin: true });
      const team = await addConnection(gw, {
        userId: admin.id,
        owner: 'team',
        toolId: 'google',
        secret: 'team-key',
      });

      expect(await gw.services.tokens.vend(userId, 'google', { authProvider: cloud })).toEqual({
        token: 'team-key',
        source: 'team_connection',
      });

      await gw.services.database.db.deleteFrom('connections').where('id', '=', team).execute();
      expect(await gw.services.tokens.vend(userId, 'google', { authProvider: cloud })).toEqual({
        token: idp.issuedAccessTokens.at(-1),
        source: 'oauth',
      });
    });

    it('picks the most recently updated top-level connection, or the named instance', async () => {
      const gw = await target.create();
      const user = await gw.createUser();
      const older = await addConnection(gw, {
        userId: user.id,
        toolId: 'jira',
        instanceName: 'Old',
        secret: 'old-key',
        updatedAt: '2026-01-01T00:00:00.000Z',
      });
      await addConnection(gw, {
        userId: user.id,
        toolId: 'jira',
        instanceName: 'New',
        secret: 'new-key',
        updatedAt: '2026-02-01T00:00:00.000Z',
      });
      // A newer nested instance does not count as the default.
      await addConnection(gw, {
        userId: user.id,
        toolId: 'jira',
        instanceName: 'Project',
        secret: 'nested-key',
        updatedAt: '2026-03-01T00:00:00.000Z',
        parentId: older,
      });

      expect(await gw.services.tokens.getToken(user.id, 'jira')).toBe('new-key');
      expect(await gw.services.tokens.getToken(user.id, 'jira', { instance: 'Old' })).toBe(
        'old-key',
      );
      expect(await gw.services.tokens.getToken(user.id, 'jira', { instance: 'Project' })).toBe(
        'nested-key',
      );
    });

    it("falls through to a team connection when the user has none, and never uses another user's", async () => {
      const gw = await target.create({ env: { WEATHER_API_KEY: 'server-key' } });
      const user = await gw.createUser();
      const other = await gw.createUser();
      const admin = await gw.createUser({ admin: true });
      await addConnection(gw, { userId: other.id, toolId: 'weather', secret: 'other-users-key' });
      await addConnection(gw, {
        userId: admin.id,
        owner: 'team',
        toolId: 'weather',
        secret: 'team-key',
      });

      expect(await gw.services.tokens.vend(user.id, 'weather')).toEqual({
        token: 'team-key',
        source: 'team_connection',
      });
    });

    // Issue 14 item 4: an unreadable connection used to fall through to the server's key.
    it('fails with secret_unreadable for a connection it cannot decrypt, trying no later source', async () => {
      const gw = await target.create({ env: { JIRA_API_KEY: 'server-jira-key' } });
      const user = await gw.createUser();
      const admin = await gw.createUser({ admin: true });
      const team = await addConnection(gw, {
        userId: admin.id,
        owner: 'team',
        toolId: 'jira',
        secret: 'team-key',
      });
      const own = await addConnection(gw, { userId: user.id, toolId: 'jira', secret: 'own-key' });
      // Stored under an AUTH_SECRET that is neither the current one nor a configured previous one.
      const stale = createSecretBox('the-auth-secret-before-it-changed-0123').encrypt('own-key');
      const setStale = (id: string) =>
        gw.services.database.db
          .updateTable('connections')
          .set({ encrypted_secret: stale })
          .where('id', '=', id)
          .execute();
      await setStale(own);

      const error = await gw.services.tokens.vend(user.id, 'jira').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SecretUnreadableError);
      expect(ToolError.isInstance(error)).toBe(true);
      expect((error as SecretUnreadableError).connectionId).toBe(own);
      expect((error as Error).message).toMatch(
        new RegExp(`connection ${own} cannot be decrypted.*GATEWAY_PREVIOUS_AUTH_SECRETS`),
      );
      expect(gw.logs()).toContain('a stored connection cannot be decrypted');
      expect(gw.logs()).toContain(own);

      // The team connection serves a user without one of their own, and fails the same way.
      const other = await gw.createUser();
      await setStale(team);
      const teamError = await gw.services.tokens.vend(other.id, 'jira').catch((e: unknown) => e);
      expect(teamError).toBeInstanceOf(SecretUnreadableError);
      expect((teamError as Error).message).toContain(`team connection ${team}`);
      expect((teamError as Error).message).toContain('an admin must enter');
      for (const failure of [error, teamError]) {
        expect((failure as Error).message).not.toContain('server-jira-key');
        expect((failure as Error).message).not.toContain('own-key');
      }
    });

    it('falls through to the OAuth account of the entry’s upstream provider', async () => {
      const { idp, gw, userId } = await withOAuthUser({ GOOGLE_API_KEY: 'server-key' });

      const vended = await gw.services.tokens.vend(userId, 'google', { authProvider: cloud });

      expect(vended).toEqual({ token: idp.issuedAccessTokens.at(-1), source: 'oauth' });
      // Without the entry, the provider id itself names the account: there is no `google` account.
      expect(await gw.services.tokens.vend(userId, 'google')).toEqual({
        token: 'server-key',
        source: 'api_key',
      });
    });

    it('falls through to <PROVIDER>_API_KEY last, and skips OAuth for api_key providers', async () => {
      const gw = await target.create({ env: { MY_WEATHER_API_KEY: 'server-key' } });
      const user = await gw.createUser();
      const entry = {
        id: 'my-weather',
        type: 'api_key',
        provider: 'my-weather',
        scopes: [],
      } as const;
      expect(await gw.services.tokens.vend(user.id, 'my-weather', { authProvider: entry })).toEqual(
        { token: 'server-key', source: 'api_key' },
      );
    });

    it('throws AuthRequiredError saying how to connect when no source has a credential', async () => {
      const gw = await target.create({ baseUrl: 'https://gateway.example.test' });
      const user = await gw.createUser();
      const error = await gw.services.tokens.getToken(user.id, 'github').catch((e: unknown) => e);
      expect(AuthRequiredError.isInstance(error)).toBe(true);
      expect((error as AuthRequiredError).provider).toBe('github');
      expect((error as Error).message).toContain('Tools tab of https://gateway.example.test');
      expect((error as Error).message).toContain('`gateway connect github`');
    });

    it('throws AuthRequiredError for a named instance that does not exist, without trying other sources', async () => {
      const gw = await target.create({ env: { JIRA_API_KEY: 'server-key' } });
      const user = await gw.createUser();
      await addConnection(gw, {
        userId: user.id,
        toolId: 'jira',
        instanceName: 'Work',
        secret: 'work-key',
      });
      const error = await gw.services.tokens
        .getToken(user.id, 'jira', { instance: 'Home' })
        .catch((e: unknown) => e);
      expect(AuthRequiredError.isInstance(error)).toBe(true);
      expect((error as Error).message).toContain('named "Home"');
    });

    it('gives a tool handler its ctx.auth through resolverFor', async () => {
      const gw = await target.create();
      const user = await gw.createUser();
      await addConnection(gw, { userId: user.id, toolId: 'google', secret: 'pasted-token' });
      const auth = gw.services.tokens.resolverFor(user.id, { id: 'cloud', authProviders: [cloud] });
      expect(await auth.getToken('google')).toBe('pasted-token');
    });

    it('refuses a provider the plugin does not declare, before any source is read (issue 14)', async () => {
      const gw = await target.create({ env: { GITHUB_API_KEY: 'server-github-key' } });
      const user = await gw.createUser();
      await addConnection(gw, { userId: user.id, toolId: 'github', secret: 'users-github' });
      await addConnection(gw, { userId: user.id, owner: 'team', toolId: 'github', secret: 'team' });
      const decrypt = vi.spyOn(gw.services.secrets, 'decrypt');
      const auth = gw.services.tokens.resolverFor(user.id, { id: 'cloud', authProviders: [cloud] });

      const error = await auth.getToken('github').catch((e: unknown) => e);
      expect(UndeclaredProviderError.isInstance(error)).toBe(true);
      expect(AuthRequiredError.isInstance(error)).toBe(false);
      expect(error).toMatchObject({ plugin: 'cloud', provider: 'github' });
      expect(decrypt).not.toHaveBeenCalled();
      // The same user and source serve a provider the plugin declares.
      await addConnection(gw, { userId: user.id, toolId: 'google', secret: 'pasted-token' });
      expect(await auth.getToken('google')).toBe('pasted-token');
    });
  });
}

for (const target of gatewayTargets()) {
  describe.skipIf(target.skip)(`OAuth refresh on ${target.name}`, () => {
    it('refreshes an expired token once for 50 concurrent calls, persisting the rotated refresh token', async () => {
      const idp = await startMockProvider({ claims: { sub: 'gcp-2', email: 'sam@example.test' } });
      const gw = await target.create({ env: genericProviderEnv('gcp', idp) });
      const userId = await signInWithGcp(gw);
      const firstRefreshToken = await storedRefreshToken(gw, userId);
      await expireAccessToken(gw, userId);

      const tokens = await Promise.all(
        Array.from({ length: 50 }, () =>
          gw.services.tokens.getToken(userId, 'google', { authProvider: cloud }),
        ),
      );

      expect(idp.refreshCount()).toBe(1);
      const refreshed = idp.issuedAccessTokens.at(-1);
      expect(new Set(tokens)).toEqual(new Set([refreshed]));
      const rotated = idp.issuedRefreshTokens.at(-1);
      expect(rotated).not.toBe(firstRefreshToken);
      expect(await storedRefreshToken(gw, userId)).toBe(rotated);

      // Fresh now: no further refresh.
      expect(await gw.services.tokens.getToken(userId, 'google', { authProvider: cloud })).toBe(
        refreshed,
      );
      expect(idp.refreshCount()).toBe(1);
      expect(await refreshMetric(gw, 'ok')).toBe(1);
    });

    it('has the rotated refresh token stored by the time the new access token is returned', async () => {
      const idp = await startMockProvider({ claims: { sub: 'gcp-3', email: 'kim@example.test' } });
      const gw = await target.create({ env: genericProviderEnv('gcp', idp) });
      const userId = await signInWithGcp(gw);
      await expireAccessToken(gw, userId);

      const token = await gw.services.tokens.getToken(userId, 'google', { authProvider: cloud });
      // Read before anything else runs: the write was committed before getToken resolved.
      const stored = await storedRefreshToken(gw, userId);

      expect(token).toBe(idp.issuedAccessTokens.at(-1));
      expect(stored).toBe(idp.issuedRefreshTokens.at(-1));
    });

    it('tells the user to reconnect when the provider refuses the refresh', async () => {
      const idp = await startMockProvider({ claims: { sub: 'gcp-4', email: 'lee@example.test' } });
      const gw = await target.create({ env: genericProviderEnv('gcp', idp) });
      const userId = await signInWithGcp(gw);
      await expireAccessToken(gw, userId);
      idp.server.service.once('beforeResponse', (response) => {
        response.statusCode = 400;
        response.body = { error: 'invalid_grant' };
      });

      const error = await gw.services.tokens
        .getToken(userId, 'google', { authProvider: cloud })
        .catch((e: unknown) => e);

      expect(AuthRequiredError.isInstance(error)).toBe(true);
      expect((error as Error).message).toContain('expired and could not be renewed');
      expect(gw.logs()).toContain('OAuth token refresh failed');
      expect(await refreshMetric(gw, 'failed')).toBe(1);
    });
  });
}

/** `gateway_token_refreshes_total` for the gcp provider and `result`, as `/metrics` shows it. */
async function refreshMetric(gw: TestGateway, result: 'ok' | 'failed'): Promise<number> {
  const response = await gw.request('GET', '/metrics', { as: 'service' });
  const series = `gateway_token_refreshes_total{provider="gcp",result="${result}"} `;
  const line = (await response.text()).split('\n').find((text) => text.startsWith(series));
  return Number(line?.slice(series.length) ?? 0);
}

const postgres = gatewayTargets().find((target) => target.name === 'PostgreSQL');
describe.skipIf(postgres?.skip !== false)('OAuth refresh across instances (PostgreSQL)', () => {
  it('spends the refresh token once when two instances refresh at the same moment', async () => {
    if (!postgres) return;
    const idp = await startMockProvider({ claims: { sub: 'gcp-5', email: 'max@example.test' } });
    const env = genericProviderEnv('gcp', idp);
    const one = await postgres.create({ env });
    const two = await postgres.create({ env, shareWith: one });
    const userId = await signInWithGcp(one);
    await expireAccessToken(one, userId);

    const calls = Array.from({ length: 50 }, (_, i) =>
      (i % 2 === 0 ? one : two).services.tokens.getToken(userId, 'google', { authProvider: cloud }),
    );
    const tokens = await Promise.all(calls);

    expect(idp.refreshCount()).toBe(1);
    expect(new Set(tokens)).toEqual(new Set([idp.issuedAccessTokens.at(-1)]));
  });
});
