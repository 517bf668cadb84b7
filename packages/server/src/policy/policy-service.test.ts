import { describe, expect, it, onTestFinished } from 'vitest';
import { createTestDatabase } from '#test/db/test-database.js';
import { forecastPlugin, notesPlugin } from '#test/registry/test-plugins.js';
import { Refusal } from '../errors/refusal.js';
import { PluginCatalog } from '../registry/plugin-catalog.js';
import { PolicyService } from './policy-service.js';

async function setup(defaultRoleId = 'member') {
  const database = await createTestDatabase();
  onTestFinished(() => database.close());
  const plugins = new PluginCatalog([notesPlugin(), forecastPlugin()]);
  plugins.mount({ id: 'notes', namespace: 'notes', pluginId: 'notes' });
  plugins.mount({ id: 'forecast', namespace: 'forecast', pluginId: 'forecast' });
  const policy = new PolicyService({ database, plugins, defaultRoleId });
  const now = new Date().toISOString();
  const addUser = async (roleId?: string) => {
    const id = crypto.randomUUID();
    await database.db
      .insertInto('user')
      .values({
        id,
        name: 'U',
        email: `${id}@example.test`,
        emailVerified: true,
        image: null,
        createdAt: now,
        updatedAt: now,
      })
      .execute();
    if (roleId)
      await database.db
        .insertInto('user_roles')
        .values({ user_id: id, role_id: roleId, assigned_at: now })
        .execute();
    return id;
  };
  return { database, plugins, policy, addUser };
}

const paths = (tools: readonly { path: string }[]) => tools.map((tool) => tool.path);

describe('PolicyService', () => {
  it('resolves a service account to the tools its role allows that allow service accounts', async () => {
    const { policy } = await setup();
    const forUser = await policy.createRole({ id: 'ops', name: 'Ops', patterns: ['**'] });
    expect(forUser.id).toBe('ops');
    const resolution = await policy.resolve({ serviceAccountRoleId: 'ops' });
    expect(resolution.role).toEqual({ id: 'ops', name: 'Ops', patterns: ['**'] });
    expect(paths(resolution.tools)).toEqual(['forecast.daily.get', 'notes.notes.list']);
    expect(resolution.tool('notes.notes.list')?.pluginId).toBe('notes');
    expect(resolution.tool('notes.notes.create')).toBeUndefined();
    // A role that does not exist allows nothing.
    expect((await policy.resolveForServiceAccount('ghost')).tools).toEqual([]);
  });

  it('gives users without a role the default role, with no patterns when it does not exist', async () => {
    const { policy, addUser } = await setup('nonexistent');
    const user = await addUser();
    const resolution = await policy.resolveForUser(user);
    expect(resolution.role).toEqual({ id: 'nonexistent', name: 'nonexistent', patterns: [] });
    expect(resolution.tools).toEqual([]);
    expect(await policy.roleOf(user)).toEqual({
      id: 'nonexistent',
      name: 'nonexistent',
      patterns: [],
    });
  });

  it('answers 404 for an unknown user', async () => {
    const { policy } = await setup();
    await expect(policy.resolveForUser('ghost')).rejects.toSatisfy(
      (error) => Refusal.isInstance(error) && error.code === 'not_found',
    );
  });

  it('caches per role: the same list until the role or the catalog changes', async () => {
    const { policy, plugins, addUser } = await setup();
    const alice = await addUser('admin');
    const bob = await addUser('admin');
    const first = await policy.resolveForUser(alice);
    expect((await policy.resolveForUser(bob)).tools).toBe(first.tools);
    expect(Object.isFrozen(first.tools)).toBe(true);
    expect(Object.isFrozen(first.role.patterns)).toBe(true);

    plugins.unmount('forecast');
    const afterUnmount = await policy.resolveForUser(alice);
    expect(afterUnmount.tools).not.toBe(first.tools);
    expect(paths(afterUnmount.tools)).not.toContain('forecast.daily.get');

    await policy.updateRole('admin', { id: 'admin', name: 'Admin', patterns: ['notes.admin.*'] });
    expect(paths((await policy.resolveForUser(alice)).tools)).toEqual(['notes.admin.purge']);

    policy.clearCache();
    expect(paths((await policy.resolveForUser(alice)).tools)).toEqual(['notes.admin.purge']);
  });

  it('sees a role edited by another instance (straight in the database) at once', async () => {
    const { policy, database, addUser } = await setup();
    const user = await addUser();
    expect((await policy.resolveForUser(user)).tools).toEqual([]);
    await database.db
      .updateTable('roles')
      .set({ patterns: '["forecast.**"]' })
      .where('id', '=', 'member')
      .execute();
    expect(paths((await policy.resolveForUser(user)).tools)).toEqual(['forecast.daily.get']);
  });
});
