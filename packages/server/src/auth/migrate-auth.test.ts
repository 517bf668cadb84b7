import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getMigrations } from 'better-auth/db/migration';
import { sql } from 'kysely';
import { describe, expect, it, onTestFinished } from 'vitest';
import { browser, clientEnv } from '#test/auth/oauth-test-kit.js';
import {
  createPostgresTestDatabase,
  databaseTargets,
  postgresTestUrl,
} from '#test/db/test-database.js';
import { createTestGateway } from '#test/support/test-gateway.js';
import { type GatewayDatabase, migrate, openDatabase } from '../db/index.js';
import { betterAuthSchemaFingerprint } from './schema-fingerprint.js';

const ORIGIN = 'http://127.0.0.1:8787';

/** better-auth's options exactly as a gateway configures it: every provider, database rate limits. */
async function realOptions() {
  const ids = ['github', 'google', 'microsoft', 'discord', 'gcp', 'atlassian', 'slack', 'linear'];
  const gw = await createTestGateway({ env: Object.assign({}, ...ids.map(clientEnv)) });
  return gw.services.auth.options;
}

// The gateway's first migrations make better-auth's tables by hand; these hold them to what
// better-auth, configured as the gateway configures it, would make itself.
for (const target of databaseTargets()) {
  describe.skipIf(target.skip)(
    `better-auth's schema after our migrations on ${target.name}`,
    () => {
      it('leaves better-auth nothing to create, add or index, its rateLimit table included', async () => {
        const { database, cleanup } = await target.open();
        onTestFinished(cleanup);
        const options = await realOptions();
        expect(options.rateLimit).toMatchObject({ enabled: true, storage: 'database' });

        const plan = await getMigrations({
          ...options,
          database: { db: database.db, type: database.dialect },
          logger: { disabled: true },
        });

        expect(plan.toBeCreated).toEqual([]);
        expect(plan.toBeAdded).toEqual([]);
        expect(plan.toBeAddedIndexes).toEqual([]);
        expect(plan.schemaProblems).toEqual([]);
      });
    },
  );
}

/** A database of a kind the gateway opens by URL, migrated by the gateway's own migrations only. */
interface Prepared {
  name: string;
  skip: boolean;
  /** Our migrations applied, then `change` run on it; returns the URL to start a gateway on. */
  prepare(change: (database: GatewayDatabase) => Promise<void>): Promise<string>;
  /** The schema better-auth's tables must end up in (PostgreSQL). */
  schema?: () => string;
}

function preparedTargets(): Prepared[] {
  const url = postgresTestUrl();
  let schema = '';
  return [
    {
      name: 'SQLite (file)',
      skip: false,
      async prepare(change) {
        const dir = await mkdtemp(join(tmpdir(), 'gateway-auth-migrations-'));
        onTestFinished(() => rm(dir, { recursive: true, force: true }));
        const file = join(dir, 'gateway.db');
        const database = await openDatabase(file, dir);
        try {
          await migrate(database);
          await change(database);
        } finally {
          await database.close();
        }
        return file;
      },
    },
    {
      name: 'PostgreSQL',
      skip: url === undefined,
      schema: () => schema,
      async prepare(change) {
        if (url === undefined) throw new Error('TEST_DATABASE_URL is not set');
        const created = await createPostgresTestDatabase(url);
        onTestFinished(created.drop);
        schema = created.schema;
        await change(created.database);
        return created.url;
      },
    },
  ];
}

const dropImageAndRateLimit = async ({ db }: GatewayDatabase) => {
  await db.schema.alterTable('user').dropColumn('image').execute();
  await db.schema.dropTable('rateLimit').execute();
};

for (const target of preparedTargets()) {
  describe.skipIf(target.skip)(`better-auth's migrations at start on ${target.name}`, () => {
    it('adds at start what better-auth needs and our tables lack, once', async () => {
      const databaseUrl = await target.prepare(dropImageAndRateLimit);

      const gw = await createTestGateway({ databaseUrl });

      expect(gw.logs()).toContain('better-auth schema migrated');
      expect(gw.logs()).toContain('create table rateLimit');
      expect(gw.logs()).toContain('add column user.image');
      // The added column and table work: sign-up writes `image`, the limiter counts in rateLimit.
      const signedUp = await browser(gw.fetch, ORIGIN).browse('/api/auth/sign-up/email', {
        body: { email: 'ada@example.test', password: 'correct horse battery', name: 'Ada' },
      });
      expect(signedUp.status).toBe(200);
      const user = await gw.services.database.db
        .selectFrom('user')
        .select(['email', 'image'])
        .executeTakeFirstOrThrow();
      expect(user).toEqual({ email: 'ada@example.test', image: null });
      const counters = await gw.services.database.db
        .selectFrom('rateLimit')
        .select('key')
        .execute();
      expect(counters.map((row) => row.key)).toContainEqual(
        expect.stringContaining('/sign-up/email'),
      );
      if (target.schema) {
        const { rows } = await sql<{ table_schema: string }>`
          select table_schema from information_schema.tables where table_name = 'rateLimit'
            and table_schema = ${target.schema()}`.execute(gw.services.database.db);
        expect(rows).toEqual([{ table_schema: target.schema() }]);
      }

      // Idempotent: nothing left to do, on this instance or the next one to start.
      expect(await gw.services.auth.migrate()).toEqual([]);
      await gw.stop();
      const again = await createTestGateway({ databaseUrl });
      expect(again.logs()).not.toContain('better-auth schema migrated');
    });

    it('stores the fingerprint of the schema it migrated to, and checks again when the stored one differs (issue 17)', async () => {
      const databaseUrl = await target.prepare(async () => undefined);
      const gw = await createTestGateway({ databaseUrl });
      const { db, dialect } = gw.services.database;
      const fingerprint = betterAuthSchemaFingerprint(gw.services.auth.options, dialect);
      const stored = (on: GatewayDatabase) =>
        on.db
          .selectFrom('schema_state')
          .select('value')
          .where('name', '=', 'better-auth')
          .executeTakeFirst();
      expect(await stored(gw.services.database)).toEqual({ value: fingerprint });

      // A fingerprint that no longer matches (another better-auth version): checked in full.
      await db.schema.alterTable('user').dropColumn('image').execute();
      await db
        .updateTable('schema_state')
        .set({ value: 'another-version' })
        .where('name', '=', 'better-auth')
        .execute();
      await gw.stop();
      const again = await createTestGateway({ databaseUrl });

      expect(again.logs()).toContain('add column user.image');
      expect(await stored(again.services.database)).toEqual({ value: fingerprint });
    });

    it('refuses to start, changing nothing, when better-auth cannot migrate safely', async () => {
      // A required column gone from a table with rows: better-auth would have to invent values.
      const databaseUrl = await target.prepare(async ({ db }) => {
        await db.schema.dropTable('rateLimit').execute();
        await db
          .insertInto('user')
          .values({
            id: 'u1',
            name: 'Ada',
            email: 'ada@example.test',
            emailVerified: true,
            image: null,
            createdAt: new Date().toISOString(),
            updatedAt: new Date().toISOString(),
          })
          .execute();
        await db.schema.alterTable('user').dropColumn('name').execute();
      });

      const error = await createTestGateway({ databaseUrl }).catch((e: unknown) => e);

      expect(error).toBeInstanceOf(Error);
      expect((error as Error).message).toMatch(
        /^better-auth's schema migration failed, nothing was changed: .*"name".*"user"/,
      );
      // Rolled back as one: the table better-auth would also have created is not there.
      const database = await openDatabase(databaseUrl, tmpdir());
      onTestFinished(() => database.close());
      const tables = (await database.db.introspection.getTables()).filter(
        (table) => target.schema === undefined || table.schema === target.schema(),
      );
      expect(tables.map((table) => table.name)).toContain('user');
      expect(tables.map((table) => table.name)).not.toContain('rateLimit');
    });
  });
}
