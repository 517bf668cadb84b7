/**
 * Issue 30 item 5: an older build started on a database a newer one migrated was refused with
 * kysely's "corrupted migrations". It is refused with what happened, naming both versions.
 */
import { tmpdir } from 'node:os';
import { sql } from 'kysely';
import { describe, expect, it, onTestFinished } from 'vitest';
import { sharedDatabaseTargets } from '#test/support/shared-database.js';
import { createTestGateway } from '#test/support/test-gateway.js';
import { openDatabase } from './database.js';
import { migrate } from './migrate.js';
import { MIGRATIONS } from './migrations/index.js';

const newest = Object.keys(MIGRATIONS).sort().at(-1) ?? '';
const ourVersion = Number(newest.slice(0, 3));

/** A migrated database at a new URL, with `step` recorded as applied besides ours. */
async function migratedWith(databaseUrl: () => Promise<string>, step: string) {
  const url = await databaseUrl();
  const database = await openDatabase(url, tmpdir());
  onTestFinished(() => database.close());
  await migrate(database);
  await sql`insert into kysely_migration (name, timestamp) values (${step}, ${new Date().toISOString()})`.execute(
    database.db,
  );
  return { url, database };
}

describe.each(sharedDatabaseTargets())('an older build on $name', ({ skip, databaseUrl }) => {
  it.skipIf(skip)(
    'a newer build migrated is refused at start: "this database is newer than this build", with both versions',
    async () => {
      const future = `${String(ourVersion + 3).padStart(3, '0')}-from-a-newer-build`;
      const { url, database } = await migratedWith(databaseUrl, future);
      const refusal = `this database is newer than this build: its schema is at version ${ourVersion + 3} ("${future}"), this build knows up to version ${ourVersion} ("${newest}")`;
      await expect(migrate(database)).rejects.toThrow(refusal);
      const started = createTestGateway({ databaseUrl: url });
      await expect(started).rejects.toThrow(refusal);
      await expect(started).rejects.not.toThrow(/corrupted/);
    },
  );

  it.skipIf(skip)(
    'names the steps it does not know when they are not newer (another branch)',
    async () => {
      const { database } = await migratedWith(databaseUrl, '005-elsewhere');
      await expect(migrate(database)).rejects.toThrow(
        `this database records migrations this build does not know ("005-elsewhere"; this build knows up to version ${ourVersion}, "${newest}")`,
      );
    },
  );
});
