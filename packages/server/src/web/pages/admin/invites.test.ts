import { describe, expect, it } from 'vitest';
import { browser } from '#test/auth/oauth-test-kit.js';
import { rememberSecret } from '#test/support/known-secrets.js';
import { createTestGateway } from '#test/support/test-gateway.js';

const ORIGIN = 'http://127.0.0.1:8787';

async function signedUpAdmin() {
  const gw = await createTestGateway({
    signup: { mode: 'invite', adminEmails: ['ops@example.test'] },
  });
  const session = browser(gw.fetch, ORIGIN);
  const res = await session.browse('/sign-up', {
    form: {
      name: 'Ops',
      email: 'ops@example.test',
      password: 'correct horse battery',
      next: '/tools',
    },
  });
  expect(res.status).toBe(303);
  return { gw, session };
}

describe('/admin/invites', () => {
  it('creates an invite, shows its link once, lists and revokes it', async () => {
    const { gw, session } = await signedUpAdmin();
    const empty = await (await session.browse('/admin/invites')).text();
    expect(empty).toContain('href="/admin/invites" aria-current="page"');
    expect(empty).toContain('Sign-up needs an invite');
    expect(empty).toContain('None yet.');

    const created = await session.browse('/admin/invites', {
      form: { email: 'Ada@Example.test', days: '3' },
    });
    expect(created.status).toBe(201);
    const page = await created.text();
    const link = /(http:\/\/127\.0\.0\.1:8787\/sign-up\?invite=gw_inv_[A-Za-z0-9]{40})/.exec(
      page,
    )?.[1];
    expect(link).toBeDefined();
    rememberSecret(new URL(link ?? '').searchParams.get('invite') ?? '');
    expect(page).toContain('Invite created for ada@example.test');

    const listed = await (await session.browse('/admin/invites')).text();
    expect(listed).not.toContain('gw_inv_');
    expect(listed).toContain('ada@example.test');
    const id = /data-invite="([0-9a-f-]{36})"/.exec(listed)?.[1] ?? '';
    expect(listed).toMatch(/pill info[^>]*>pending</);

    const revoked = await session.browse(`/admin/invites/${id}/revoke`, {
      method: 'POST',
      form: {},
    });
    expect(revoked.status).toBe(303);
    const after = await (await session.browse('/admin/invites')).text();
    expect(after).toContain('Invite revoked; its link no longer works.');
    expect(after).toMatch(/>revoked</);
    // The revoked link no longer signs anyone up.
    const late = await browser(gw.fetch, ORIGIN).browse(
      new URL(link ?? '').pathname + new URL(link ?? '').search,
    );
    expect(await late.text()).toContain('This invite link is no longer valid');
  });

  it('says what is wrong with a bad form, and keeps non-admins out', async () => {
    const { gw, session } = await signedUpAdmin();
    const bad = await session.browse('/admin/invites', { form: { email: 'nope', days: '500' } });
    expect(bad.status).toBe(303);
    const back = await (await session.browse('/admin/invites')).text();
    expect(back).toContain('Invalid body');

    const own = browser(gw.fetch, ORIGIN);
    // A plain user signs in through an invite, then tries the admin page.
    const made = await gw.request('POST', '/api/invites', {
      as: await gw.createUser({ admin: true }),
      body: {},
    });
    const { url } = (await made.json()) as { url: string };
    rememberSecret(new URL(url).searchParams.get('invite') ?? '');
    await own.browse(new URL(url).pathname + new URL(url).search);
    const joined = await own.browse('/sign-up', {
      form: {
        name: 'Bob',
        email: 'bob@example.test',
        password: 'correct horse battery',
        next: '/tools',
      },
    });
    expect(joined.status).toBe(303);
    const refused = await own.browse('/admin/invites');
    expect(refused.status).toBe(403);
    const posted = await own.browse('/admin/invites', { form: { days: '7' } });
    expect(posted.status).toBe(303);
    const count = await gw.services.database.db.selectFrom('invites').select('id').execute();
    expect(count).toHaveLength(1);
  });
});
