import { describe, expect, it } from 'vitest';
import { browser } from '#test/auth/oauth-test-kit.js';
import { loginAtProvider, startOidcProvider } from '#test/auth/oidc-provider-server.js';
import { createTestGateway, type TestGateway } from '#test/support/test-gateway.js';
import type { GatewayOptions } from '../gateway-settings.js';

// Issue 39: an email the provider has not verified passed GATEWAY_ADMIN_EMAILS and
// GATEWAY_SIGNUP_EMAIL_DOMAINS. Against oidc-provider (a certified OpenID Provider) as `gcp`.

const ORIGIN = 'http://127.0.0.1:8787';
const CALLBACK = `${ORIGIN}/api/auth/oauth2/callback/gcp`;

async function idpWith(email: string, emailVerified: boolean) {
  const idp = await startOidcProvider({ redirectUri: CALLBACK });
  idp.accounts.set('alice', { email, name: 'Alice', emailVerified });
  return idp;
}

async function gatewayFor(
  idp: Awaited<ReturnType<typeof startOidcProvider>>,
  signup: GatewayOptions['signup'],
) {
  return createTestGateway({
    signup,
    env: {
      GCP_CLIENT_ID: idp.clientId,
      GCP_CLIENT_SECRET: idp.clientSecret,
      GCP_ISSUER_URL: idp.issuer,
    },
  });
}

/** A sign-in through the provider from the gateway's sign-in page; where it lands. */
async function signIn(gw: TestGateway) {
  const session = browser(gw.fetch, ORIGIN);
  const started = await session.browse('/api/auth/sign-in/social', {
    body: {
      provider: 'gcp',
      callbackURL: '/signed-in',
      errorCallbackURL: '/sign-in',
      disableRedirect: true,
    },
  });
  expect(started.status).toBe(200);
  const { url } = (await started.json()) as { url: string };
  const callback = await loginAtProvider(url);
  const answered = await session.browse(callback.toString());
  const { url: landed } = await session.follow(
    answered,
    (next) => next.pathname === '/signed-in' || next.searchParams.has('error'),
  );
  return { session, landed };
}

async function users(gw: TestGateway) {
  return gw.services.database.db
    .selectFrom('user')
    .leftJoin('user_roles', 'user_roles.user_id', 'user.id')
    .select(['user.email', 'user.emailVerified', 'user_roles.role_id'])
    .execute();
}

/** The refusal the sign-in page shows for where a refused sign-up landed. */
async function pageText(session: ReturnType<typeof browser>, landed: URL | undefined) {
  expect(landed?.pathname).toBe('/sign-in');
  const page = await session.browse(landed?.toString() ?? '/sign-in');
  expect(page.status).toBe(200);
  return page.text();
}

const UNVERIFIED_TEXT = 'Your sign-in provider has not verified this email address';

describe('an email the provider has not verified (issue 39)', () => {
  it('is not made admin through GATEWAY_ADMIN_EMAILS on an open gateway', async () => {
    const idp = await idpWith('boss@corp.test', false);
    const gw = await gatewayFor(idp, { adminEmails: ['boss@corp.test'] });
    const { landed } = await signIn(gw);
    expect(landed?.pathname).toBe('/signed-in');
    const rows = await users(gw);
    expect(rows).toHaveLength(1);
    expect(rows[0]?.email).toBe('boss@corp.test');
    expect(rows[0]?.role_id).not.toBe('admin');
    expect(gw.logs()).toContain('an admin email signed up unverified and was not made admin');
  });

  it('is refused under closed sign-up, even as an admin address, with a page saying why', async () => {
    const idp = await idpWith('boss@corp.test', false);
    const gw = await gatewayFor(idp, { mode: 'closed', adminEmails: ['boss@corp.test'] });
    const { landed, session } = await signIn(gw);
    expect(landed?.searchParams.get('error')).toBe('signup_email_unverified');
    expect(session.jar.has('better-auth.session_token')).toBe(false);
    expect(await users(gw)).toEqual([]);
    expect(await pageText(session, landed)).toContain(UNVERIFIED_TEXT);
  });

  it('is refused under a domain list it matches, with a page saying why', async () => {
    const idp = await idpWith('carol@corp.test', false);
    const gw = await gatewayFor(idp, { emailDomains: ['corp.test'] });
    const { landed, session } = await signIn(gw);
    expect(landed?.searchParams.get('error')).toBe('signup_email_unverified');
    expect(await users(gw)).toEqual([]);
    expect(await pageText(session, landed)).toContain(UNVERIFIED_TEXT);
  });

  it('is refused for an invite made for that address', async () => {
    const idp = await idpWith('dave@corp.test', false);
    const gw = await gatewayFor(idp, { mode: 'invite' });
    const admin = await gw.createUser({ admin: true });
    const made = await gw.request('POST', '/api/invites', {
      as: admin,
      body: { email: 'dave@corp.test' },
    });
    expect(made.status).toBe(201);
    const { url } = (await made.json()) as { url: string };
    const session = browser(gw.fetch, ORIGIN);
    // Opening the link puts the invite in the browser's cookie.
    await session.browse(new URL(url).pathname + new URL(url).search);
    const started = await session.browse('/api/auth/sign-in/social', {
      body: {
        provider: 'gcp',
        callbackURL: '/signed-in',
        errorCallbackURL: '/sign-in',
        disableRedirect: true,
      },
    });
    const callback = await loginAtProvider(((await started.json()) as { url: string }).url);
    const { url: landed } = await session.follow(
      await session.browse(callback.toString()),
      (next) => next.pathname === '/signed-in' || next.searchParams.has('error'),
    );
    expect(landed?.searchParams.get('error')).toBe('signup_email_unverified');
    const invites = await gw.services.database.db.selectFrom('invites').select('used_at').execute();
    expect(invites).toEqual([{ used_at: null }]);
  });

  it('counts once the provider says it is verified: admin, and admitted by the domain list', async () => {
    const idp = await idpWith('boss@corp.test', true);
    const gw = await gatewayFor(idp, {
      mode: 'closed',
      adminEmails: ['boss@corp.test'],
      emailDomains: ['corp.test'],
    });
    const { landed } = await signIn(gw);
    expect(landed?.pathname).toBe('/signed-in');
    expect(await users(gw)).toMatchObject([{ email: 'boss@corp.test', role_id: 'admin' }]);
  });
});

describe('password sign-ups claiming an admin address (GATEWAY_PASSWORD_EMAILS)', () => {
  const signUp = (gw: TestGateway, email: string) =>
    browser(gw.fetch, ORIGIN).browse('/api/auth/sign-up/email', {
      body: { email, password: 'correct horse battery', name: 'Boss' },
    });

  it('trusted (the default): the claimed admin address is made admin on a closed gateway', async () => {
    const gw = await createTestGateway({
      signup: { mode: 'closed', adminEmails: ['boss@corp.test'] },
    });
    expect((await signUp(gw, 'boss@corp.test')).status).toBe(200);
    expect(await users(gw)).toMatchObject([{ email: 'boss@corp.test', role_id: 'admin' }]);
  });

  it('unverified: refused under closed sign-up and a domain list, never admin', async () => {
    const closed = await createTestGateway({
      env: { GATEWAY_PASSWORD_EMAILS: 'unverified' },
      signup: { mode: 'closed', adminEmails: ['boss@corp.test'] },
    });
    const refused = await signUp(closed, 'boss@corp.test');
    expect(refused.status).toBe(403);
    const body = (await refused.json()) as { error: { details: { reason: string } } };
    expect(body.error.details.reason).toBe('signup_email_unverified');
    expect(await users(closed)).toEqual([]);

    const domains = await createTestGateway({
      signup: { emailDomains: ['corp.test'], passwordEmails: 'unverified' },
    });
    expect((await signUp(domains, 'carol@corp.test')).status).toBe(403);

    const open = await createTestGateway({
      signup: { adminEmails: ['boss@corp.test'], passwordEmails: 'unverified' },
    });
    expect((await signUp(open, 'boss@corp.test')).status).toBe(200);
    const [row] = await users(open);
    expect(row?.role_id).not.toBe('admin');
  });

  it('rejects a value that is neither', async () => {
    await expect(createTestGateway({ env: { GATEWAY_PASSWORD_EMAILS: 'yes' } })).rejects.toThrow(
      'GATEWAY_PASSWORD_EMAILS must be trusted or unverified, got "yes"',
    );
  });
});
