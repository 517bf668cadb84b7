/**
 * The sign-up policy through every browser path that can create an account: the web sign-up
 * form, the CLI sign-in page, and a first sign-in through an OAuth provider (a real local OAuth
 * server). Refusals end on a gateway page with the policy's sentence.
 */
import { describe, expect, it } from 'vitest';
import {
  browser,
  genericProviderEnv,
  oauthSignIn,
  startMockProvider,
} from '#test/auth/oauth-test-kit.js';
import { rememberSecret } from '#test/support/known-secrets.js';
import { createTestGateway, type TestGateway } from '#test/support/test-gateway.js';
import type { GatewayOptions } from '../gateway-settings.js';
import { INVITE_COOKIE } from './invite-cookie.js';

const ORIGIN = 'http://127.0.0.1:8787';

async function makeInvite(gw: TestGateway, body: Record<string, unknown> = {}) {
  const admin = await gw.createUser({ admin: true });
  const res = await gw.request('POST', '/api/invites', { as: admin, body });
  expect(res.status).toBe(201);
  const { url, invite } = (await res.json()) as { url: string; invite: { id: string } };
  const token = new URL(url).searchParams.get('invite') ?? '';
  rememberSecret(token);
  return { url, token, id: invite.id };
}

/** Opens an invite link like a browser: the token goes into the cookie and off the address. */
async function openInvite(session: ReturnType<typeof browser>, url: string) {
  const res = await session.browse(new URL(url).pathname + new URL(url).search);
  expect(res.status).toBe(303);
  expect(res.headers.get('location')).toBe('/sign-up');
  const cookie = res.headers.getSetCookie().find((line) => line.startsWith(`${INVITE_COOKIE}=`));
  expect(cookie).toMatch(/HttpOnly/);
  expect(cookie).toMatch(/SameSite=Lax/);
  expect(cookie).toMatch(/Max-Age=3600/);
}

async function usersIn(gw: TestGateway) {
  const rows = await gw.services.database.db.selectFrom('user').select('email').execute();
  return rows.map((row) => row.email);
}

const form = (email: string) => ({
  email,
  password: 'correct horse battery',
  name: 'Ada',
  next: '/tools',
});

describe('the web sign-up page', () => {
  it('open: the form, and the first-admin notice only while there is no user', async () => {
    const gw = await createTestGateway();
    const session = browser(gw.fetch, ORIGIN);
    const page = await (await session.browse('/sign-up')).text();
    expect(page).toContain('<form method="post" action="/sign-up">');
    expect(page).toContain('this account becomes the gateway');
    const done = await session.browse('/sign-up', { form: form('ada@example.test') });
    expect(done.status).toBe(303);
    const next = await (await browser(gw.fetch, ORIGIN).browse('/sign-up')).text();
    expect(next).not.toContain('becomes the gateway');
  });

  it('closed: explains, shows no form, and refuses a posted form with the sentence', async () => {
    const gw = await createTestGateway({ signup: { mode: 'closed' } });
    const session = browser(gw.fetch, ORIGIN);
    const page = await (await session.browse('/sign-up')).text();
    expect(page).toContain('Sign-up is closed on this gateway; ask an admin for access.');
    expect(page).not.toContain('action="/sign-up"');
    expect(page).not.toContain('becomes the gateway');
    const posted = await session.browse('/sign-up', { form: form('ada@example.test') });
    expect(posted.status).toBe(403);
    expect(await posted.text()).toContain(
      'Sign-up is closed on this gateway; ask an admin for access',
    );
    expect(await usersIn(gw)).toEqual([]);
  });

  it('closed with admin emails: the form stays until the operator’s account exists', async () => {
    const gw = await createTestGateway({
      signup: { mode: 'closed', adminEmails: ['ops@example.test'] },
    });
    const session = browser(gw.fetch, ORIGIN);
    const page = await (await session.browse('/sign-up')).text();
    expect(page).toContain('except for the administrator addresses');
    expect(page).toContain('action="/sign-up"');
    expect(page).not.toContain('becomes the gateway');
    expect((await session.browse('/sign-up', { form: form('ops@example.test') })).status).toBe(303);
    const after = await (await browser(gw.fetch, ORIGIN).browse('/sign-up')).text();
    expect(after).not.toContain('action="/sign-up"');
  });

  it('invite: explains without an invite; with the link, says so, prefills a bound email and signs up once', async () => {
    const gw = await createTestGateway({ signup: { mode: 'invite' } });
    const stranger = browser(gw.fetch, ORIGIN);
    const page = await (await stranger.browse('/sign-up')).text();
    expect(page).toContain('Sign-up needs an invite link from an admin');
    const refused = await stranger.browse('/sign-up', { form: form('eve@example.test') });
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain('Sign-up needs an invite link from an admin');

    const { url, token } = await makeInvite(gw, { email: 'ada@example.test' });
    const invited = browser(gw.fetch, ORIGIN);
    await openInvite(invited, url);
    const withInvite = await (await invited.browse('/sign-up')).text();
    expect(withInvite).toContain('You are signing up with an invite for ada@example.test.');
    expect(withInvite).toContain('value="ada@example.test"');
    expect(withInvite).not.toContain(token);
    const done = await invited.browse('/sign-up', { form: form('ada@example.test') });
    expect(done.status).toBe(303);
    expect(invited.jar.has(INVITE_COOKIE)).toBe(false);
    expect(invited.jar.has('better-auth.session_token')).toBe(true);

    // The same link again: no longer valid, said plainly.
    const late = browser(gw.fetch, ORIGIN);
    const again = await late.browse(new URL(url).pathname + new URL(url).search);
    expect(again.status).toBe(200);
    expect(await again.text()).toContain('This invite link is no longer valid');
    expect(late.jar.has(INVITE_COOKIE)).toBe(false);
    // The request log saw the link's path, never its token.
    expect(gw.logs()).toContain('/sign-up');
    expect(gw.logs()).not.toContain(token.slice(7));
  });

  it('the CLI sign-in page refuses account creation with the same sentence', async () => {
    const gw = await createTestGateway({ signup: { mode: 'invite' } });
    const session = browser(gw.fetch, ORIGIN);
    const next = '/cli/authorize?x=1';
    const page = await (
      await session.browse(`/cli/sign-in?next=${encodeURIComponent(next)}`)
    ).text();
    const csrf = /name="csrf" value="([^"]+)"/.exec(page)?.[1] ?? '';
    const res = await session.browse('/cli/sign-in', {
      form: { ...form('eve@example.test'), next, csrf, action: 'sign-up' },
    });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('Sign-up needs an invite link from an admin');

    const { url } = await makeInvite(gw);
    await openInvite(session, url);
    const ok = await session.browse('/cli/sign-in', {
      form: { ...form('ada@example.test'), next, csrf, action: 'sign-up' },
    });
    expect(ok.status).toBe(303);
    expect(ok.headers.get('location')).toBe(next);
  });
});

describe('first sign-in through an OAuth provider (a real local OAuth server)', () => {
  async function setup(signup: GatewayOptions['signup'], email = 'grace@example.test') {
    const idp = await startMockProvider({ claims: { sub: 'sub-1', email, name: 'Grace' } });
    const gw = await createTestGateway({ env: genericProviderEnv('gcp', idp), signup });
    return { idp, gw };
  }

  /** The web app's provider button, the provider, the callback: where the browser lands. */
  async function viaProvider(gw: TestGateway, session = browser(gw.fetch, ORIGIN)) {
    const started = await session.browse('/sign-in/social', {
      form: { provider: 'gcp', next: '/tools' },
    });
    expect(started.status).toBe(303);
    const authorize = await session.browse(started.headers.get('location') ?? '');
    const { url } = await session.follow(
      authorize,
      (next) => next.origin === ORIGIN && !next.pathname.startsWith('/api/'),
    );
    if (url === undefined) throw new Error('the flow did not come back');
    const page = await session.browse(url.pathname + url.search);
    return { url, session, page };
  }

  it('open: the account is made', async () => {
    const { gw } = await setup(undefined);
    const { url } = await viaProvider(gw);
    expect(url.pathname).toBe('/tools');
    expect(await usersIn(gw)).toEqual(['grace@example.test']);
  });

  for (const [name, signup, sentence] of [
    ['closed', { mode: 'closed' }, 'Sign-up is closed on this gateway; ask an admin for access'],
    ['invite without an invite', { mode: 'invite' }, 'Sign-up needs an invite link from an admin'],
    [
      'a domain not allowed',
      { emailDomains: ['example.com'] },
      'Sign-up is open to addresses at example.com only',
    ],
  ] as const) {
    it(`${name}: refused, and the gateway's sign-in page says why`, async () => {
      const { gw } = await setup(signup);
      const { url, page } = await viaProvider(gw);
      expect(url.pathname).toBe('/sign-in');
      expect(page.status).toBe(200);
      expect(await page.text()).toContain(sentence);
      expect(await usersIn(gw)).toEqual([]);
    });
  }

  it('started through the API without an error URL: still ends on the gateway sign-in page', async () => {
    const { gw } = await setup({ mode: 'closed' });
    const session = browser(gw.fetch, ORIGIN);
    const landed = await oauthSignIn(session, 'gcp');
    expect(landed.pathname).toBe('/sign-in');
    expect(landed.searchParams.get('error')).toBe('signup_closed');
    const page = await session.browse(landed.pathname + landed.search);
    expect(await page.text()).toContain(
      'Sign-up is closed on this gateway; ask an admin for access',
    );
  });

  it('invite: the invite opened before the provider admits the account, once', async () => {
    const { gw } = await setup({ mode: 'invite' });
    const { url: link, id } = await makeInvite(gw, { email: 'Grace@example.test' });
    const session = browser(gw.fetch, ORIGIN);
    await openInvite(session, link);
    const { url } = await viaProvider(gw, session);
    expect(url.pathname).toBe('/tools');
    expect(await usersIn(gw)).toContain('grace@example.test');
    const admin = await gw.createUser({ admin: true });
    const { invites } = (await (await gw.request('GET', '/api/invites', { as: admin })).json()) as {
      invites: { id: string; status: string; usedBy: string | null }[];
    };
    expect(invites.find((invite) => invite.id === id)).toMatchObject({
      status: 'used',
      usedBy: expect.any(String),
    });
  });

  it('invite bound to another email: refused on the sign-in page', async () => {
    const { gw } = await setup({ mode: 'invite' });
    const { url: link } = await makeInvite(gw, { email: 'someone-else@example.test' });
    const session = browser(gw.fetch, ORIGIN);
    await openInvite(session, link);
    const { url, page } = await viaProvider(gw, session);
    expect(url.pathname).toBe('/sign-in');
    expect(await page.text()).toContain('This invite is for another email address');
    expect(await usersIn(gw)).not.toContain('grace@example.test');
  });

  it('closed: an admin email signs up and is admin; an existing user still signs in', async () => {
    const { gw } = await setup({ mode: 'closed', adminEmails: ['grace@example.test'] });
    const { url } = await viaProvider(gw);
    expect(url.pathname).toBe('/tools');
    const role = await gw.services.database.db
      .selectFrom('user')
      .innerJoin('user_roles', 'user_roles.user_id', 'user.id')
      .select('user_roles.role_id')
      .where('user.email', '=', 'grace@example.test')
      .executeTakeFirst();
    expect(role?.role_id).toBe('admin');

    // The same person again, in a fresh browser: a sign-in, not a sign-up.
    const again = await viaProvider(gw);
    expect(again.url.pathname).toBe('/tools');

    const closed = await setup({ mode: 'closed' }, 'ada@example.test');
    await closed.gw.createUser({ email: 'ada@example.test' });
    const existing = await viaProvider(closed.gw);
    expect(existing.url.pathname).toBe('/tools');
  });

  it('a forged error description in the URL is not shown: the page words the code itself', async () => {
    const gw = await createTestGateway({ signup: { mode: 'invite' } });
    const res = await browser(gw.fetch, ORIGIN).browse(
      '/sign-in?error=signup_closed&error_description=Call+0800+EVIL',
    );
    const page = await res.text();
    expect(page).toContain('Sign-up is closed on this gateway; ask an admin for access');
    expect(page).not.toContain('EVIL');
  });
});
