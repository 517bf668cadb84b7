import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { browser } from '#test/auth/oauth-test-kit.js';
import {
  loginAtProvider,
  type OidcProviderServer,
  startOidcProvider,
} from '#test/auth/oidc-provider-server.js';
import { createTestGateway, type TestGateway } from '#test/support/test-gateway.js';

// Issue 39: while the IdP answered 503, calls said the sign-in "has expired and could not be
// renewed. Reconnect it", every concurrent call fetched discovery itself and logged its own
// failure. oidc-provider as the generic slot `gcp`, named "GCP", in discovery mode.

const ORIGIN = 'http://127.0.0.1:8787';
const CALLBACK = `${ORIGIN}/api/auth/oauth2/callback/gcp`;
const OUTAGE = 'GCP sign-in cannot be reached right now; try again shortly';
const OUTAGE_LINE = 'a sign-in provider cannot be reached';

function gatewayOn(idp: OidcProviderServer, databaseUrl: string) {
  return createTestGateway({
    databaseUrl,
    env: {
      GCP_CLIENT_ID: idp.clientId,
      GCP_CLIENT_SECRET: idp.clientSecret,
      GCP_ISSUER_URL: idp.issuer,
      GCP_DISPLAY_NAME: 'GCP',
    },
  });
}

async function signIn(gw: TestGateway) {
  const session = browser(gw.fetch, ORIGIN);
  const started = await session.browse('/api/auth/sign-in/social', {
    body: { provider: 'gcp', callbackURL: '/signed-in', disableRedirect: true },
  });
  expect(started.status).toBe(200);
  const callback = await loginAtProvider(((await started.json()) as { url: string }).url);
  const { url } = await session.follow(
    await session.browse(callback.toString()),
    (next) => next.pathname === '/signed-in' || next.searchParams.has('error'),
  );
  expect(url?.pathname).toBe('/signed-in');
  return gw.services.database.db
    .selectFrom('account')
    .select(['userId', 'accessToken', 'refreshToken'])
    .where('providerId', '=', 'gcp')
    .executeTakeFirstOrThrow();
}

async function expireAccessToken(gw: TestGateway) {
  await gw.services.database.db
    .updateTable('account')
    .set({ accessTokenExpiresAt: new Date(Date.now() - 1000) })
    .where('providerId', '=', 'gcp')
    .execute();
}

/** 50 concurrent calls for a `gcp` token; what each threw (or the source that served it). */
async function fiftyCalls(gw: TestGateway, userId: string) {
  return Promise.all(
    Array.from({ length: 50 }, () =>
      gw.services.tokens.vend(userId, 'gcp').then(
        (vended) => vended.source as string,
        (error: unknown) => (error instanceof Error ? error.message : String(error)),
      ),
    ),
  );
}

const count = (text: string, part: string) => text.split(part).length - 1;

describe('an OpenID provider that answers 503 (issue 39)', () => {
  it('gives the outage wording, fetches discovery once for 50 calls, logs once, and marks nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-outage-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'gateway.db');
    const idp = await startOidcProvider({ redirectUri: CALLBACK });

    const first = await gatewayOn(idp, file);
    const before = await signIn(first);
    await first.stop();

    // The IdP goes down, and a gateway starts (restarts) meanwhile: nothing known of it yet.
    idp.down = true;
    const gw = await gatewayOn(idp, file);
    await expireAccessToken(gw);
    const discoveries = idp.discoveries();
    const answers = await fiftyCalls(gw, before.userId);

    expect(new Set(answers)).toEqual(new Set([OUTAGE]));
    expect(idp.discoveries() - discoveries).toBe(1);
    expect(count(gw.logs(), OUTAGE_LINE)).toBe(1);
    expect(gw.logs()).not.toContain('OAuth token refresh failed');
    // Nothing is marked for reconnect, and the stored tokens are the same.
    const marks = await gw.services.database.db
      .selectFrom('oauth_reconnect')
      .select('account_id')
      .execute();
    expect(marks).toEqual([]);
    // A second wave within the minute: still one line in the log.
    await fiftyCalls(gw, before.userId);
    expect(count(gw.logs(), OUTAGE_LINE)).toBe(1);

    // Back up: the next call works, without any reconnect.
    idp.down = false;
    const [served] = await fiftyCalls(gw, before.userId);
    expect(served).toBe('oauth');
    expect(idp.grants('refresh_token')).toBe(1);
  });

  it('words a token endpoint answering 503 as the outage too, once discovery is known', async () => {
    const idp = await startOidcProvider({ redirectUri: CALLBACK });
    const gw = await gatewayOn(idp, ':memory:');
    const { userId } = await signIn(gw);
    await expireAccessToken(gw);
    idp.down = true;
    const answers = await fiftyCalls(gw, userId);
    expect(new Set(answers)).toEqual(new Set([OUTAGE]));
    expect(count(gw.logs(), OUTAGE_LINE)).toBe(1);
    expect(answers.join('\n')).not.toMatch(/expired|Reconnect/);
  });

  it('refuses to start a sign-in with the outage wording while discovery answers 503', async () => {
    const idp = await startOidcProvider({ redirectUri: CALLBACK });
    idp.down = true;
    const gw = await gatewayOn(idp, ':memory:');
    const started = await browser(gw.fetch, ORIGIN).browse('/api/auth/sign-in/social', {
      body: { provider: 'gcp', callbackURL: '/signed-in', disableRedirect: true },
    });
    expect(started.status).toBe(503);
    const body = (await started.json()) as { error: { message: string } };
    expect(body.error.message).toBe(OUTAGE);
    expect(idp.discoveries()).toBe(1);
  });
});
