import { describe, expect, it } from 'vitest';
import { gatewayTargets } from '#test/auth/oauth-test-kit.js';
import { createTestGateway, type TestGateway } from '#test/support/test-gateway.js';
import { issueCliToken } from '../identity/cli-token-store.js';
import { issueCode } from './codes.js';
import { s256 } from './pkce.js';
import { cliTokenExpiry, formatExpiry } from './token-expiry.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** A token from `POST /api/cli/token`, for a code issued as `/cli/authorize` would. */
async function issueTokenThroughRoutes(gw: TestGateway) {
  const user = await gw.createUser();
  const verifier = 'v'.repeat(43);
  const redirectUri = 'http://127.0.0.1:53682/callback';
  const code = await issueCode(gw.services.database.db, {
    userId: user.id,
    redirectUri,
    state: 'state',
    codeChallenge: s256(verifier),
    clientName: 'gateway CLI on laptop',
  });
  const issuedAt = Date.now();
  const res = await gw.request('POST', '/api/cli/token', {
    body: { code, code_verifier: verifier, redirect_uri: redirectUri },
  });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { expiresAt: string };
  return { issuedAt, expiresAt: body.expiresAt };
}

// Issue 13, item 8: `gw_cli_` tokens expire after GATEWAY_CLI_TOKEN_DAYS.
for (const target of gatewayTargets()) {
  describe.skipIf(target.skip)(`CLI token expiry on ${target.name}`, () => {
    it('answers an expired CLI token 401 saying when it expired and to sign in again', async () => {
      const gw = await target.create();
      const ada = await gw.createUser();
      const { db } = gw.services.database;
      // Issued two days ago for one day: it expired yesterday.
      const expired = await issueCliToken(db, ada.id, 'old laptop', {
        days: 1,
        now: new Date(Date.now() - 2 * DAY_MS),
      });
      // Issued a day ago less a minute, for one day: it works for another minute.
      const expiring = await issueCliToken(db, ada.id, 'new laptop', {
        days: 1,
        now: new Date(Date.now() - DAY_MS + 60_000),
      });

      const refused = await gw.request('GET', '/api/me', { as: { token: expired.token } });
      expect(refused.status).toBe(401);
      const text = await refused.text();
      expect(JSON.parse(text)).toEqual({
        error: {
          code: 'unauthorized',
          message: `The CLI token expired on ${formatExpiry(expired.expiresAt)}; run \`gateway login\` to sign in again`,
          details: { reason: 'cli_token_expired', expiresAt: expired.expiresAt },
        },
      });
      expect(formatExpiry(expired.expiresAt)).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
      expect(text).not.toContain(expired.token.slice('gw_cli_'.length));

      const works = await gw.request('GET', '/api/me', { as: { token: expiring.token } });
      expect(works.status).toBe(200);
      expect(await works.json()).toMatchObject({
        token: { id: expiring.id, expiresAt: expiring.expiresAt },
      });
      // The list holds live tokens only: the expired one is gone from it, the others show expiry.
      const list = await gw.request('GET', '/api/cli/tokens', { as: { token: expiring.token } });
      expect(await list.json()).toEqual({
        // Newest first: createUser's token is from now, the expiring one from yesterday.
        tokens: [
          expect.objectContaining({ name: expect.any(String), expiresAt: null }),
          expect.objectContaining({ id: expiring.id, expiresAt: expiring.expiresAt }),
        ],
      });
    });

    it('keeps tokens issued before expiry existed (expires_at NULL) working', async () => {
      const gw = await target.create();
      // createUser stores its token the way tokens were issued before: without an expiry.
      const ada = await gw.createUser();
      const row = await gw.services.database.db
        .selectFrom('api_tokens')
        .select(['id', 'expires_at'])
        .where('user_id', '=', ada.id)
        .executeTakeFirstOrThrow();
      expect(row.expires_at).toBeNull();
      const me = await gw.request('GET', '/api/me', { as: ada });
      expect(me.status).toBe(200);
      expect(await me.json()).toMatchObject({ token: { id: row.id, expiresAt: null } });
    });

    it('keeps the general message for revoked, unknown and expired non-CLI tokens', async () => {
      const gw = await target.create();
      const admin = await gw.createUser({ admin: true });
      const { db } = gw.services.database;
      const general = {
        error: { code: 'unauthorized', message: 'The bearer token is invalid, expired or revoked' },
      };

      const revoked = await issueCliToken(db, admin.id, 'revoked', {
        days: 1,
        now: new Date(Date.now() - 2 * DAY_MS),
      });
      await db
        .updateTable('api_tokens')
        .set({ revoked_at: new Date().toISOString() })
        .where('id', '=', revoked.id)
        .execute();
      const answer = await gw.request('GET', '/api/me', { as: { token: revoked.token } });
      expect(answer.status).toBe(401);
      expect(await answer.json()).toEqual(general);

      const unknown = await gw.request('GET', '/api/me', {
        as: { token: `gw_cli_${'A'.repeat(40)}` },
      });
      expect(await unknown.json()).toEqual(general);

      const created = await gw.request('POST', '/api/service-accounts', {
        as: admin,
        body: { name: 'nightly', roleId: 'member' },
      });
      const account = (await created.json()) as { id: string; key: string };
      await db
        .updateTable('api_tokens')
        .set({ expires_at: new Date(Date.now() - DAY_MS).toISOString() })
        .where('service_account_id', '=', account.id)
        .execute();
      const key = await gw.request('GET', '/api/me', { as: { token: account.key } });
      expect(key.status).toBe(401);
      expect(await key.json()).toEqual(general);
    });
  });
}

describe('GATEWAY_CLI_TOKEN_DAYS', () => {
  it('refuses to start on anything but a whole number of days, naming the variable', async () => {
    for (const bad of ['0', '-3', '1.5', 'ninety', '1e3', '36501', '0x10', '9'.repeat(400)]) {
      await expect(
        createTestGateway({ env: { GATEWAY_CLI_TOKEN_DAYS: bad } }),
        bad,
      ).rejects.toThrow(/^GATEWAY_CLI_TOKEN_DAYS must be a whole number of days from 1 to 36500/);
    }
    for (const bad of [0, 2.5, Number.NaN, 40_000]) {
      await expect(createTestGateway({ cliTokenDays: bad }), String(bad)).rejects.toThrow(
        /cliTokenDays.*GATEWAY_CLI_TOKEN_DAYS/,
      );
    }
  });

  it('is read from the environment, and the cliTokenDays option beats it', async () => {
    const fromEnv = await createTestGateway({ env: { GATEWAY_CLI_TOKEN_DAYS: ' 30 ' } });
    const fromOption = await createTestGateway({
      env: { GATEWAY_CLI_TOKEN_DAYS: '30' },
      cliTokenDays: 2,
    });
    // The routes are built with the setting; the OpenAPI-described answer carries it.
    for (const [gw, days] of [
      [fromEnv, 30],
      [fromOption, 2],
    ] as const) {
      const issued = await issueTokenThroughRoutes(gw);
      expect(Date.parse(issued.expiresAt) - issued.issuedAt).toBeGreaterThanOrEqual(days * DAY_MS);
      expect(Date.parse(issued.expiresAt) - Date.now()).toBeLessThanOrEqual(days * DAY_MS);
    }
  });

  it('computes the expiry from the issue time', () => {
    expect(cliTokenExpiry(new Date('2026-01-01T00:00:00Z'), 90)).toBe('2026-04-01T00:00:00.000Z');
    expect(formatExpiry('2026-04-01T09:30:12.000Z')).toBe('2026-04-01 09:30 UTC');
  });
});
