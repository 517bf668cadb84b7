import { rememberSecret } from '@gateway/server/testing';
import { describe, expect, it } from 'vitest';
import { cliFailure, revokeTokensOf, signInCli } from '#test/support/cli-user.js';
import { startGateway } from '#test/support/gateway-server.js';
import { TestBrowser } from '#test/support/test-browser.js';
import { runInvitesCreate, runInvitesList, runInvitesRevoke } from './index.js';

describe('gateway invites', () => {
  it('creates a link that signs one person up on an invite-only gateway, lists and revokes', async () => {
    const { url } = await startGateway({
      env: { GATEWAY_SIGNUP: 'invite', GATEWAY_ADMIN_EMAILS: 'admin@example.test' },
    });
    const admin = await signInCli(url, 'admin@example.test');

    const made = admin.options();
    const { invite, url: link } = await runInvitesCreate({
      ...made,
      email: 'ada@example.test',
      days: '3',
    });
    const token = new URL(link).searchParams.get('invite') ?? '';
    rememberSecret(token);
    expect(token).toMatch(/^gw_inv_/);
    expect(made.io.out()).toBe(
      `✓ Invite for ada@example.test, valid once until ${invite.expiresAt} (shown only now):\n${link}\n`,
    );

    // The link works once, in a browser, for that address.
    const ada = new TestBrowser(url);
    const opened = await ada.request(new URL(link).pathname + new URL(link).search);
    expect(opened.status).toBe(303);
    await ada.signUp('ada@example.test');
    const eve = new TestBrowser(url);
    await eve.request(new URL(link).pathname + new URL(link).search);
    await expect(eve.signUp('eve@example.test')).rejects.toThrow();

    const listed = admin.options();
    await runInvitesList(listed);
    expect(listed.io.out()).toMatch(/^ID\s+EMAIL\s+STATUS\s+EXPIRES\n/);
    expect(listed.io.out()).toMatch(new RegExp(`\\n${invite.id}\\s+ada@example\\.test\\s+used\\s`));
    expect(listed.io.out()).not.toContain('gw_inv_');

    const open = admin.options();
    const second = await runInvitesCreate({ ...open, json: true });
    rememberSecret(new URL(second.url).searchParams.get('invite') ?? '');
    expect(JSON.parse(open.io.out())).toMatchObject({ invite: { email: null, status: 'pending' } });

    const json = admin.options();
    await runInvitesList({ ...json, json: true });
    const { invites } = JSON.parse(json.io.out()) as { invites: { id: string }[] };
    expect(invites.map((row) => row.id)).toEqual([second.invite.id, invite.id]);
    expect(json.io.out()).not.toContain('gw_inv_');

    const revoked = admin.options();
    await expect(runInvitesRevoke({ ...revoked, id: second.invite.id })).resolves.toEqual([
      second.invite.id,
    ]);
    expect(revoked.io.out()).toBe(
      `✓ Revoked invite ${second.invite.id}; its link no longer works\n`,
    );
  });

  it('fails in one line: bad --days (2), not an admin (4), bad email or unknown invite (1)', async () => {
    const { url } = await startGateway();
    const admin = await signInCli(url, 'admin@example.test');
    const ada = await signInCli(url, 'ada@example.test');

    for (const days of ['0', '91', '1.5', 'week', '']) {
      const bad = await cliFailure(runInvitesCreate({ ...admin.options(), days }));
      expect(bad.exitCode).toBe(2);
      expect(bad.message).toBe(`--days must be a whole number of days from 1 to 90, got "${days}"`);
    }
    const badEmail = await cliFailure(runInvitesCreate({ ...admin.options(), email: 'nope' }));
    expect(badEmail.exitCode).toBe(1);
    expect(badEmail.message).toBe(
      'The gateway refused the request: Invalid body (email: Invalid email address)',
    );

    const member = await cliFailure(runInvitesList(ada.options()));
    expect(member.exitCode).toBe(4);
    expect(member.message).toBe('Not allowed: Only an admin may do this');

    const unknown = await cliFailure(
      runInvitesRevoke({ ...admin.options(), id: crypto.randomUUID() }),
    );
    expect(unknown.exitCode).toBe(1);
    expect(unknown.message).toMatch(/^No invite .*; see `gateway invites list`$/);

    await revokeTokensOf(admin);
    const signedOut = await cliFailure(runInvitesCreate(admin.options()));
    expect(signedOut.exitCode).toBe(4);
    expect(signedOut.message).toBe('Not signed in. Run `gateway login`.');
  });

  it('says sign-up is closed when invites could not be used', async () => {
    const { url } = await startGateway({
      env: { GATEWAY_SIGNUP: 'closed', GATEWAY_ADMIN_EMAILS: 'admin@example.test' },
    });
    const admin = await signInCli(url, 'admin@example.test');
    const closed = await cliFailure(runInvitesCreate(admin.options()));
    expect(closed.exitCode).toBe(1);
    expect(closed.message).toMatch(/^Sign-up is closed on this gateway \(GATEWAY_SIGNUP=closed\)/);
  });
});
