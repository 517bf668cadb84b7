import { describe, expect, it } from 'vitest';
import { cliFailure, revokeTokensOf, signInCli } from '#test/support/cli-user.js';
import { startGateway } from '#test/support/gateway-server.js';
import { runRolesAssign, runRolesList, runRolesSet } from './index.js';

describe('gateway roles', () => {
  it('creates, updates and lists roles, and assigns one (admin)', async () => {
    const { url } = await startGateway();
    const admin = await signInCli(url, 'admin@example.test');
    const ada = await signInCli(url, 'ada@example.test');

    const created = admin.options();
    await expect(
      runRolesSet({ ...created, id: 'readers', name: 'Readers', patterns: ['github.*.list'] }),
    ).resolves.toEqual({
      role: { id: 'readers', name: 'Readers', patterns: ['github.*.list'] },
      created: true,
    });
    expect(created.io.out()).toBe('✓ Created role readers (Readers): github.*.list\n');

    // No --name: the current one stays.
    const updated = admin.options();
    await runRolesSet({ ...updated, id: 'readers', patterns: ['github.*.list', 'weather.**'] });
    expect(updated.io.out()).toBe('✓ Updated role readers (Readers): github.*.list weather.**\n');

    const listed = admin.options();
    await runRolesList(listed);
    expect(listed.io.out()).toMatch(/^ID\s+NAME\s+PATTERNS\n/);
    expect(listed.io.out()).toMatch(/\nmember\s+\S.*\(no tools\)\n/);
    expect(listed.io.out()).toMatch(/\nreaders\s+Readers\s+github\.\*\.list weather\.\*\*\n/);
    const json = ada.options();
    await runRolesList({ ...json, json: true });
    expect(JSON.parse(json.io.out()).roles).toContainEqual({
      id: 'readers',
      name: 'Readers',
      patterns: ['github.*.list', 'weather.**'],
    });

    const assigned = admin.options();
    await expect(
      runRolesAssign({ ...assigned, userId: ada.userId, roleId: 'readers' }),
    ).resolves.toEqual({ userId: ada.userId, roleId: 'readers' });
    expect(assigned.io.out()).toBe(`✓ User ${ada.userId} now has role readers\n`);
  });

  it('checks the role here first (exit 2), and maps the gateway’s refusals', async () => {
    const { url } = await startGateway();
    const admin = await signInCli(url, 'admin@example.test');
    const ada = await signInCli(url, 'ada@example.test');

    const invalid = await cliFailure(
      runRolesSet({ ...admin.options(), id: 'Readers', name: 'R', patterns: ['github..list'] }),
    );
    expect(invalid.exitCode).toBe(2);
    expect(invalid.message).toMatch(
      /^Not a valid role: id: .+; patterns\.0 \("github\.\.list"\): segment 2 is empty/,
    );
    const none = await cliFailure(runRolesSet({ ...admin.options(), id: 'x', patterns: [] }));
    expect(none.exitCode).toBe(2);

    const member = await cliFailure(
      runRolesSet({ ...ada.options(), id: 'mine', name: 'Mine', patterns: ['**'] }),
    );
    expect(member.exitCode).toBe(4);
    expect(member.message).toBe('Not allowed: Only an admin may do this');

    const noRole = await cliFailure(
      runRolesAssign({ ...admin.options(), userId: ada.userId, roleId: 'nope' }),
    );
    expect(noRole.exitCode).toBe(1);
    expect(noRole.message).toMatch(/nope.*; see `gateway roles list`$/);

    await revokeTokensOf(admin);
    const signedOut = await cliFailure(runRolesList(admin.options()));
    expect(signedOut.exitCode).toBe(4);
    expect(signedOut.message).toBe('Not signed in. Run `gateway login`.');
  });
});
