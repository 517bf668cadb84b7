import { describe, expect, it } from 'vitest';
import {
  browser,
  gatewayTargets,
  genericProviderEnv,
  startMockProvider,
} from '#test/auth/oauth-test-kit.js';
import type { TestGateway } from '#test/support/test-gateway.js';

const ORIGIN = 'http://127.0.0.1:8787';
const REDIRECT = 'http://127.0.0.1:53999/callback';
const STATE = 'connect-state-0123456789';

function hiddenOf(html: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const match of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    fields[match[1] ?? ''] = (match[2] ?? '')
      .replaceAll('&quot;', '"')
      .replaceAll('&lt;', '<')
      .replaceAll('&gt;', '>')
      .replaceAll('&#39;', "'")
      .replaceAll('&amp;', '&');
  }
  return fields;
}

async function signedIn(gw: TestGateway) {
  const session = browser(gw.fetch, ORIGIN);
  await session.browse('/api/auth/sign-up/email', {
    body: { email: 'ada@example.test', password: 'correct horse battery', name: 'Ada' },
  });
  return session;
}

const connectUrl = (provider: string) =>
  `/cli/connect/${provider}?${new URLSearchParams({ redirect_uri: REDIRECT, state: STATE })}`;

for (const target of gatewayTargets()) {
  describe.skipIf(target.skip)(`gateway connect <provider>, server side on ${target.name}`, () => {
    it('links the provider to the signed-in user and ends on the loopback redirect', async () => {
      const idp = await startMockProvider({
        claims: { sub: 'gcp-77', email: 'ops@corp.example', name: 'Ops' },
      });
      const gw = await target.create({ env: genericProviderEnv('gcp', idp) });
      const session = await signedIn(gw);

      const page = await session.browse(connectUrl('gcp'));
      expect(page.status).toBe(200);
      const html = await page.text();
      expect(html).toContain('Connect Google Cloud');
      const started = await session.browse('/cli/connect/gcp', {
        form: { ...hiddenOf(html), action: 'connect' },
      });
      expect(started.status).toBe(303);
      expect(started.headers.get('location')).toContain(`${idp.url}/authorize`);

      const { url: loopback } = await session.follow(started, (url) => url.port === '53999');
      expect(`${loopback?.origin}${loopback?.pathname}`).toBe(REDIRECT);
      expect(Object.fromEntries(loopback?.searchParams ?? [])).toEqual({
        state: STATE,
        complete_uri: `${ORIGIN}/cli/connect/gcp/complete`,
        provider: 'gcp',
        status: 'connected',
      });
      // The page the CLI's listener sends the browser on to reads the link from the database.
      const complete = await session.browse('/cli/connect/gcp/complete');
      expect(complete.status).toBe(200);
      expect(complete.headers.get('x-frame-options')).toBe('DENY');
      const completeHtml = await complete.text();
      expect(completeHtml).toContain('<h1>Google Cloud connected</h1>');
      expect(completeHtml).toContain('ada@example.test');

      const user = await gw.services.database.db
        .selectFrom('user')
        .select('id')
        .executeTakeFirstOrThrow();
      const accounts = await gw.services.database.db
        .selectFrom('account')
        .select(['providerId', 'userId'])
        .orderBy('providerId')
        .execute();
      expect(accounts).toEqual([
        { providerId: 'credential', userId: user.id },
        { providerId: 'gcp', userId: user.id },
      ]);
      // The linked account now vends tokens for a plugin whose auth provider maps to it.
      const token = await gw.services.tokens.getToken(user.id, 'google', {
        authProvider: { id: 'google', type: 'oauth2', provider: 'gcp', scopes: [] },
      });
      expect(token).toBe(idp.issuedAccessTokens.at(-1));
    });

    it('reports a provider error to the loopback', async () => {
      const idp = await startMockProvider({ claims: { sub: 'gcp-78', email: 'ops@corp.example' } });
      idp.server.service.once('beforeAuthorizeRedirect', (redirect) => {
        redirect.url.searchParams.delete('code');
        redirect.url.searchParams.set('error', 'access_denied');
      });
      const gw = await target.create({ env: genericProviderEnv('gcp', idp) });
      const session = await signedIn(gw);
      const html = await (await session.browse(connectUrl('gcp'))).text();
      const started = await session.browse('/cli/connect/gcp', {
        form: { ...hiddenOf(html), action: 'connect' },
      });
      const { url: loopback } = await session.follow(started, (url) => url.port === '53999');
      expect(loopback?.searchParams.get('error')).toBe('access_denied');
      expect(loopback?.searchParams.get('state')).toBe(STATE);
      expect(loopback?.searchParams.get('status')).toBeNull();
      // Only a success names the complete page; the listener shows a refusal itself.
      expect(loopback?.searchParams.get('complete_uri')).toBeNull();
      const complete = await (await session.browse('/cli/connect/gcp/complete')).text();
      expect(complete).toContain('<h1>Google Cloud is not connected</h1>');
    });

    // Issue 36: the connect pages render with the server's one HTML kit, which escapes what the
    // CLI sent; a cancel tells the loopback with the state as sent and the provider.
    it('escapes the CLI state in its form and tells the loopback of a cancel', async () => {
      const idp = await startMockProvider();
      const gw = await target.create({ env: genericProviderEnv('gcp', idp) });
      const session = await signedIn(gw);
      const state = `"><img src=x onerror=alert(1)>'&`;
      const query = new URLSearchParams({ redirect_uri: REDIRECT, state });
      const page = await session.browse(`/cli/connect/gcp?${query}`);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
      const html = await page.text();
      expect(html).not.toContain('<img');
      expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
      const fields = hiddenOf(html);
      expect(fields.state).toBe(state);
      const cancelled = await session.browse('/cli/connect/gcp', {
        form: { ...fields, action: 'cancel' },
      });
      expect(cancelled.status).toBe(303);
      const loopback = new URL(cancelled.headers.get('location') ?? '');
      expect(Object.fromEntries(loopback.searchParams)).toEqual({
        state,
        provider: 'gcp',
        error: 'access_denied',
      });
    });

    it('sends a browser that is not signed in to sign in first', async () => {
      const idp = await startMockProvider();
      const gw = await target.create({ env: genericProviderEnv('gcp', idp) });
      const res = await browser(gw.fetch, ORIGIN).browse(connectUrl('gcp'));
      expect(res.status).toBe(302);
      expect(res.headers.get('location')).toBe(
        `/cli/sign-in?next=${encodeURIComponent(connectUrl('gcp'))}`,
      );
    });

    it('refuses an unconfigured provider and a non-loopback redirect', async () => {
      const idp = await startMockProvider();
      const gw = await target.create({ env: genericProviderEnv('gcp', idp) });
      const session = await signedIn(gw);
      expect((await session.browse(connectUrl('github'))).status).toBe(404);
      const evil = `/cli/connect/gcp?${new URLSearchParams({ redirect_uri: 'https://evil.example/callback', state: STATE })}`;
      const res = await session.browse(evil);
      expect(res.status).toBe(400);
      expect(res.headers.get('location')).toBeNull();
    });

    it('answers the complete page only for a configured provider and a signed-in browser', async () => {
      const idp = await startMockProvider();
      const gw = await target.create({ env: genericProviderEnv('gcp', idp) });
      expect((await browser(gw.fetch, ORIGIN).browse('/cli/connect/gcp/complete')).status).toBe(
        401,
      );
      const session = await signedIn(gw);
      expect((await session.browse('/cli/connect/github/complete')).status).toBe(404);
    });

    it('refuses a finished or unknown flow', async () => {
      const gw = await target.create();
      const session = await signedIn(gw);
      const res = await session.browse('/cli/connect/gcp/done?flow=unknown');
      expect(res.status).toBe(400);
    });
  });
}
