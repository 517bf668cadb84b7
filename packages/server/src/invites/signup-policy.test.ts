import { describe, expect, it } from 'vitest';
import { browser, gatewayTargets } from '#test/auth/oauth-test-kit.js';
import { rememberSecret } from '#test/support/known-secrets.js';
import { createTestGateway, type TestGateway } from '#test/support/test-gateway.js';
import type { GatewayOptions } from '../gateway-settings.js';
import { INVITE_COOKIE } from './invite-cookie.js';

const ORIGIN = 'http://127.0.0.1:8787';

async function signUp(gw: TestGateway, email: string, invite?: string) {
  const session = browser(gw.fetch, ORIGIN);
  // A browser that opened the invite link carries its cookie (see web tests for the page itself).
  if (invite !== undefined) session.jar.store(cookieResponse(invite));
  const res = await session.browse('/api/auth/sign-up/email', {
    body: { email, password: 'correct horse battery', name: email.split('@')[0] },
  });
  return { res, session };
}

function cookieResponse(token: string): Response {
  const headers = new Headers();
  headers.append('set-cookie', `${INVITE_COOKIE}=${token}; Path=/`);
  return new Response(null, { headers });
}

async function invite(gw: TestGateway, body: Record<string, unknown> = {}) {
  const admin = await gw.createUser({ admin: true });
  const res = await gw.request('POST', '/api/invites', { as: admin, body });
  expect(res.status).toBe(201);
  const created = (await res.json()) as { invite: { id: string }; url: string };
  const token = new URL(created.url).searchParams.get('invite') ?? '';
  rememberSecret(token);
  return { id: created.invite.id, token, admin };
}

async function roleOf(gw: TestGateway, email: string): Promise<string | undefined> {
  const row = await gw.services.database.db
    .selectFrom('user')
    .leftJoin('user_roles', 'user_roles.user_id', 'user.id')
    .select('user_roles.role_id')
    .where('user.email', '=', email)
    .executeTakeFirst();
  return row?.role_id ?? undefined;
}

async function refusal(res: Response) {
  expect(res.status).toBe(403);
  const body = (await res.json()) as { error: { code: string; message: string } };
  expect(body.error.code).toBe('forbidden');
  return body.error;
}

describe('sign-up policy on the email sign-up API', () => {
  const gateway = (signup: GatewayOptions['signup'], env: Record<string, string> = {}) =>
    createTestGateway({ signup, env });

  it('open (the default): anyone signs up, and the first account becomes admin', async () => {
    const gw = await createTestGateway();
    expect((await signUp(gw, 'first@example.test')).res.status).toBe(200);
    expect((await signUp(gw, 'second@example.test')).res.status).toBe(200);
    expect(await roleOf(gw, 'first@example.test')).toBe('admin');
    expect(await roleOf(gw, 'second@example.test')).toBeUndefined();
  });

  it('closed: refuses every sign-up with a sentence saying what to do, even with an invite', async () => {
    const open = await gateway({ mode: 'invite' });
    const { token } = await invite(open);
    const gw = await gateway(undefined, { GATEWAY_SIGNUP: 'closed' });
    const error = await refusal((await signUp(gw, 'ada@example.test')).res);
    expect(error).toEqual({
      code: 'forbidden',
      message: 'Sign-up is closed on this gateway; ask an admin for access',
      details: { reason: 'signup_closed' },
    });
    await refusal((await signUp(gw, 'ada@example.test', token)).res);
    expect(await gw.services.database.db.selectFrom('user').select('id').execute()).toEqual([]);
    // Making an invite that could never be used is refused up front.
    const admin = await gw.createUser({ admin: true });
    const made = await gw.request('POST', '/api/invites', { as: admin, body: {} });
    expect(made.status).toBe(409);
  });

  it('existing users still sign in when sign-up is closed', async () => {
    const gw = await gateway({ mode: 'closed', adminEmails: ['ops@example.test'] });
    expect((await signUp(gw, 'ops@example.test')).res.status).toBe(200);
    const session = browser(gw.fetch, ORIGIN);
    const res = await session.browse('/api/auth/sign-in/email', {
      body: { email: 'ops@example.test', password: 'correct horse battery' },
    });
    expect(res.status).toBe(200);
  });

  it('invite: refuses without an invite, admits with one, and the invite is single-use', async () => {
    const gw = await gateway({ mode: 'invite' });
    const error = await refusal((await signUp(gw, 'ada@example.test')).res);
    expect(error.message).toBe('Sign-up needs an invite link from an admin');

    const { id, token } = await invite(gw);
    const { res, session } = await signUp(gw, 'ada@example.test', token);
    expect(res.status).toBe(200);
    expect(session.jar.has('better-auth.session_token')).toBe(true);
    const again = await refusal((await signUp(gw, 'bob@example.test', token)).res);
    expect(again.message).toMatch(/^This invite link is no longer valid/);

    const listed = await gw.request('GET', '/api/invites', {
      as: await gw.createUser({ admin: true }),
    });
    const { invites } = (await listed.json()) as { invites: Record<string, unknown>[] };
    const ada = await gw.services.database.db
      .selectFrom('user')
      .select('id')
      .where('email', '=', 'ada@example.test')
      .executeTakeFirstOrThrow();
    expect(invites.find((row) => row.id === id)).toMatchObject({
      status: 'used',
      usedBy: ada.id,
    });
  });

  it('invite: refuses an expired, a revoked, an unknown or a malformed invite', async () => {
    const gw = await gateway({ mode: 'invite' });
    const expired = await invite(gw);
    await gw.services.database.db
      .updateTable('invites')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('id', '=', expired.id)
      .execute();
    expect(
      (await refusal((await signUp(gw, 'a@example.test', expired.token)).res)).message,
    ).toMatch(/no longer valid/);

    const revoked = await invite(gw);
    const del = await gw.request('DELETE', `/api/invites/${revoked.id}`, { as: revoked.admin });
    expect(del.status).toBe(200);
    await refusal((await signUp(gw, 'b@example.test', revoked.token)).res);

    const unknown = `gw_inv_${'A'.repeat(40)}`;
    expect((await refusal((await signUp(gw, 'c@example.test', unknown)).res)).message).toMatch(
      /no longer valid/,
    );
    // Not the shape of an invite: read as no invite at all.
    expect(
      (await refusal((await signUp(gw, 'd@example.test', "x'; drop table invites")).res)).message,
    ).toBe('Sign-up needs an invite link from an admin');
    expect(await gw.services.database.db.selectFrom('user').select('email').execute()).toHaveLength(
      2, // the two admins that made the invites
    );
  });

  it('invite bound to an email admits only that email (any case), without naming it', async () => {
    const gw = await gateway({ mode: 'invite' });
    const { token } = await invite(gw, { email: 'Ada@Example.test' });
    const wrong = await refusal((await signUp(gw, 'mallory@example.test', token)).res);
    expect(wrong.message).toBe(
      'This invite is for another email address; sign up with the address it was made for',
    );
    expect(JSON.stringify(wrong)).not.toMatch(/ada/i);
    // The failed attempt did not use it up.
    expect((await signUp(gw, 'ADA@example.test', token)).res.status).toBe(200);
  });

  it('domains: only listed domains sign up (case-insensitive, exact), invited or not', async () => {
    const gw = await gateway(undefined, {
      GATEWAY_SIGNUP_EMAIL_DOMAINS: 'Example.com, example.org',
    });
    expect((await signUp(gw, 'ada@EXAMPLE.com')).res.status).toBe(200);
    expect((await signUp(gw, 'bob@example.org')).res.status).toBe(200);
    const error = await refusal((await signUp(gw, 'eve@eu.example.com')).res);
    expect(error.message).toBe('Sign-up is open to addresses at example.com or example.org only');

    const invited = await gateway({ mode: 'invite', emailDomains: ['example.com'] });
    const { token } = await invite(invited);
    expect((await refusal((await signUp(invited, 'eve@evil.test', token)).res)).message).toBe(
      'Sign-up is open to addresses at example.com only',
    );
    expect((await signUp(invited, 'ada@example.com', token)).res.status).toBe(200);
  });

  it('admin emails: made admin at creation, admitted whatever the mode, first-user-admin off', async () => {
    const gw = await gateway(undefined, {
      GATEWAY_SIGNUP: 'invite',
      GATEWAY_ADMIN_EMAILS: 'Ops@Example.test, root@example.test',
      GATEWAY_SIGNUP_EMAIL_DOMAINS: 'example.com',
    });
    expect((await signUp(gw, 'ops@example.test')).res.status).toBe(200);
    expect(await roleOf(gw, 'ops@example.test')).toBe('admin');

    const open = await gateway({ adminEmails: ['ops@example.test'] });
    expect((await signUp(open, 'first@example.test')).res.status).toBe(200);
    expect(await roleOf(open, 'first@example.test')).toBeUndefined();
    expect((await signUp(open, 'ops@example.test')).res.status).toBe(200);
    expect(await roleOf(open, 'ops@example.test')).toBe('admin');
  });

  it('bad settings fail start with a message naming the variable', async () => {
    await expect(createTestGateway({ env: { GATEWAY_SIGNUP: 'sometimes' } })).rejects.toThrow(
      'GATEWAY_SIGNUP must be open, invite or closed, got "sometimes"',
    );
    await expect(
      createTestGateway({ env: { GATEWAY_SIGNUP_EMAIL_DOMAINS: 'example.com,@evil' } }),
    ).rejects.toThrow(/^GATEWAY_SIGNUP_EMAIL_DOMAINS must be .*"@evil"/);
    await expect(
      createTestGateway({ env: { GATEWAY_ADMIN_EMAILS: 'not-an-address' } }),
    ).rejects.toThrow(/^GATEWAY_ADMIN_EMAILS must be comma-separated email addresses/);
    // A restriction that names nothing must not read as no restriction at all.
    await expect(
      createTestGateway({ env: { GATEWAY_SIGNUP_EMAIL_DOMAINS: ' , ' } }),
    ).rejects.toThrow(
      'GATEWAY_SIGNUP_EMAIL_DOMAINS is set but names nothing; unset it for any domain',
    );
    await expect(createTestGateway({ env: { GATEWAY_ADMIN_EMAILS: ',' } })).rejects.toThrow(
      'GATEWAY_ADMIN_EMAILS is set but names nothing; unset it for the first user as admin',
    );
    for (const signup of [{ emailDomains: [] }, { adminEmails: [''] }]) {
      await expect(createTestGateway({ signup })).rejects.toThrow(/names nothing; leave it out$/);
    }
    // The option beats the environment.
    const gw = await createTestGateway({
      env: { GATEWAY_SIGNUP: 'closed' },
      signup: { mode: 'open' },
    });
    expect((await signUp(gw, 'ada@example.test')).res.status).toBe(200);
  });
});

for (const target of gatewayTargets()) {
  describe.skipIf(target.skip)(`one invite, two sign-ups at once, on ${target.name}`, () => {
    it('exactly one of them gets the account', async () => {
      const gw = await target.create({ signup: { mode: 'invite' } });
      const { token } = await invite(gw);
      const attempts = await Promise.all(
        Array.from({ length: 6 }, (_, i) => signUp(gw, `racer${i}@example.test`, token)),
      );
      const statuses = attempts.map(({ res }) => res.status).sort();
      expect(statuses).toEqual([200, 403, 403, 403, 403, 403]);
      const users = await gw.services.database.db
        .selectFrom('user')
        .select('email')
        .where('email', 'like', 'racer%')
        .execute();
      expect(users).toHaveLength(1);
    });
  });
}
