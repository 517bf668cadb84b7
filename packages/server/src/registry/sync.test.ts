import { describe, expect, it } from 'vitest';
import { forecastPlugin, notesPlugin } from '#test/registry/test-plugins.js';
import { sharedDatabaseTargets } from '#test/support/shared-database.js';
import { createTestGateway, type TestGateway } from '#test/support/test-gateway.js';

/** Two ways for two instances to share one database. */
const targets = sharedDatabaseTargets();

async function instance(databaseUrl: string): Promise<TestGateway> {
  const gateway = await createTestGateway({
    databaseUrl,
    plugins: [notesPlugin(), forecastPlugin()],
    host: '127.0.0.1',
    port: 0,
    registrySyncSeconds: 0.05,
  });
  await gateway.start();
  return gateway;
}

async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const paths = (gateway: TestGateway) => gateway.services.plugins.tools().map((tool) => tool.path);

describe.each(targets)('registrations across instances on $name', ({ skip, databaseUrl }) => {
  it.skipIf(skip)(
    'a registration made or removed on one instance applies on the other',
    async () => {
      const url = await databaseUrl();
      // The first instance migrates; the second starts on the migrated database.
      const first = await instance(url);
      const second = await instance(url);
      // What code embedding the gateway mounts itself is not the database's to take away.
      second.services.plugins.mount({ id: 'direct', namespace: 'forecast', pluginId: 'forecast' });

      const created = await first.request('POST', '/api/registry/sources', {
        as: 'service',
        body: { type: 'plugin', id: 'notes', namespace: 'notes', pluginId: 'notes' },
      });
      expect(created.status).toBe(201);
      await until(
        () => paths(second).includes('notes.notes.list'),
        'the second instance mounts notes',
      );

      const removed = await first.request('DELETE', '/api/registry/sources/notes', {
        as: 'service',
      });
      expect(removed.status).toBe(200);
      await until(
        () => !paths(second).includes('notes.notes.list'),
        'the second instance unmounts notes',
      );
      expect(paths(second)).toEqual(['forecast.daily.get']);

      // And the other way round: the second registers, the first follows.
      const again = await second.request('POST', '/api/registry/sources', {
        as: 'service',
        body: { type: 'plugin', id: 'notes', namespace: 'notes', pluginId: 'notes' },
      });
      expect(again.status).toBe(201);
      await until(
        () => paths(first).includes('notes.notes.list'),
        'the first instance mounts notes',
      );
    },
  );
});

// Issue 38: the registrations were read ordered by creation time alone, so those made in one
// millisecond were mounted (and skipped, and warned about) in whatever order the database chose.
describe.each(targets)(
  'registrations made in one millisecond on $name',
  ({ skip, databaseUrl }) => {
    it.skipIf(skip)('are taken in id order on every instance', async () => {
      const url = await databaseUrl();
      const first = await instance(url);
      const createdAt = new Date().toISOString();
      // Stored greater id first; neither plugin is loaded, so each is skipped with a warning.
      for (const id of ['zeta', 'alpha']) {
        await first.services.database.db
          .insertInto('registry_sources')
          .values({
            id,
            type: 'plugin',
            namespace: id,
            plugin_id: `${id}-plugin`,
            created_at: createdAt,
            upstream: null,
          })
          .execute();
      }
      const second = await instance(url);
      const skipped = second
        .logs()
        .split('\n')
        .filter((line) => line.includes('registry source skipped'))
        .map((line) => (JSON.parse(line) as { sourceId: string }).sourceId);
      expect(skipped).toEqual(['alpha', 'zeta']);
    });
  },
);
