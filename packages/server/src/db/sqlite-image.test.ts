/**
 * An in-memory SQLite database started from a serialized one (`GatewayInternals.sqliteImage`,
 * what the tests' gateways start from: issue 35) is a copy: migrated like the original, and
 * written to without the original or another copy seeing it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it, onTestFinished } from 'vitest';
import { createTestDatabase } from '#test/db/test-database.js';
import { openDatabase } from './database.js';
import { migrate } from './migrate.js';
import { SQLITE_MEMORY } from './sqlite.js';

async function migratedImage(): Promise<Buffer> {
  const original = await createTestDatabase();
  onTestFinished(() => original.close());
  let image: Buffer | undefined;
  original.runNow?.((connection) => {
    image = connection.serialize();
  });
  if (image === undefined) throw new Error('no image');
  return image;
}

it('starts an in-memory database as a copy of the image: migrated, and its writes its own', async () => {
  const image = await migratedImage();
  const one = await openDatabase(SQLITE_MEMORY, tmpdir(), undefined, image);
  const two = await openDatabase(SQLITE_MEMORY, tmpdir(), undefined, image);
  onTestFinished(() => Promise.all([one.close(), two.close()]).then(() => undefined));

  expect(await migrate(one)).toEqual([]);
  expect(await migrate(two)).toEqual([]);
  await one.db.insertInto('schema_state').values({ name: 'copy', value: 'one' }).execute();

  const names = async (database: typeof one) =>
    (await database.db.selectFrom('schema_state').select('name').execute()).map((row) => row.name);
  expect(await names(one)).toEqual(['copy']);
  expect(await names(two)).toEqual([]);
});

it('refuses an image for a database file', async () => {
  const image = await migratedImage();
  const dir = await mkdtemp(join(tmpdir(), 'gateway-sqlite-image-'));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));

  await expect(openDatabase(join(dir, 'gateway.db'), dir, undefined, image)).rejects.toThrow(
    'only an in-memory SQLite database starts from a serialized image',
  );
});
