import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { chmod, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Kysely, sql } from 'kysely';
import { describe, expect, it, onTestFinished } from 'vitest';
import { databaseTargets } from '#test/db/test-database.js';
import { type GatewayDatabase, openDatabase } from './database.js';
import { migrate } from './migrate.js';
import { loadMigrations, MIGRATIONS } from './migrations/index.js';
import type { DatabaseSchema } from './schema.js';

const GATEWAY_TABLES = [
  'account',
  'api_tokens',
  'approvals',
  'connections',
  'executions',
  'mcp_endpoints',
  'registry_sources',
  'roles',
  'schema_state',
  'service_accounts',
  'session',
  'upstream_tools',
  'user',
  'user_roles',
  'verification',
];

/**
 * The tables of this database: on PostgreSQL, of its own schema only, read without kysely's
 * introspector, which lists every schema (tests in other schemas create and drop theirs meanwhile).
 */
async function tableNames(database: GatewayDatabase): Promise<string[]> {
  if (database.dialect === 'sqlite')
    return (await database.db.introspection.getTables()).map((table) => table.name);
  const { rows } = await sql<{ name: string }>`
    select table_name as name from information_schema.tables
    where table_schema = current_schema()`.execute(database.db);
  return rows.map((row) => row.name);
}

const iso = (offsetMs = 0) => new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 678) + offsetMs).toISOString();

async function insertUser(db: Kysely<DatabaseSchema>, id: string = randomUUID()) {
  await db
    .insertInto('user')
    .values({
      id,
      name: 'Ada',
      email: `${id}@example.test`,
      createdAt: iso(),
      updatedAt: iso(),
    })
    .execute();
  return id;
}

async function tempDir() {
  const dir = await mkdtemp(join(tmpdir(), 'gateway-db-test-'));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

describe('openDatabase', () => {
  it('opens <dataDir>/gateway.db when no URL is given, creating the directory', async () => {
    const dataDir = join(await tempDir(), 'nested', 'data');
    const database = await openDatabase(undefined, dataDir);
    onTestFinished(() => database.close());

    expect(database.dialect).toBe('sqlite');
    expect(existsSync(join(dataDir, 'gateway.db'))).toBe(true);
  });

  it('treats an empty URL as unset', async () => {
    const dataDir = await tempDir();
    const database = await openDatabase('  ', dataDir);
    onTestFinished(() => database.close());

    expect(existsSync(join(dataDir, 'gateway.db'))).toBe(true);
  });

  it('sets WAL, synchronous=FULL, foreign keys and a busy timeout on a file database', async () => {
    const dir = await tempDir();
    const database = await openDatabase(join(dir, 'app.db'), dir);
    onTestFinished(() => database.close());

    const pragma = async (name: string) =>
      Object.values((await sql.raw(`pragma ${name}`).execute(database.db)).rows[0] ?? {})[0];
    expect(await pragma('journal_mode')).toBe('wal');
    expect(await pragma('synchronous')).toBe(2); // FULL
    expect(await pragma('foreign_keys')).toBe(1);
    expect(await pragma('busy_timeout')).toBe(5000);
  });

  // It holds encrypted credentials, token hashes and sessions: nobody else on the host reads it.
  it('creates the database file, its WAL and shared-memory files readable by the owner only', async () => {
    const dataDir = join(await tempDir(), 'data');
    const database = await openDatabase(undefined, dataDir);
    onTestFinished(() => database.close());
    await migrate(database);

    const file = join(dataDir, 'gateway.db');
    for (const path of [file, `${file}-wal`, `${file}-shm`]) {
      expect((await stat(path)).mode & 0o777, path).toBe(0o600);
    }
  });

  it('leaves the mode of an existing database file as its owner set it', async () => {
    const dir = await tempDir();
    const file = join(dir, 'shared.db');
    await writeFile(file, '', { mode: 0o640 });
    await chmod(file, 0o640);
    const database = await openDatabase(file, dir);
    onTestFinished(() => database.close());

    expect((await stat(file)).mode & 0o777).toBe(0o640);
  });

  it('opens :memory: without a file', async () => {
    const dir = await tempDir();
    const database = await openDatabase(':memory:', dir);
    onTestFinished(() => database.close());

    expect(database.dialect).toBe('sqlite');
    expect(existsSync(join(dir, 'gateway.db'))).toBe(false);
    expect(existsSync(':memory:')).toBe(false);
  });

  it('rejects another URL scheme without echoing the URL', async () => {
    const attempt = openDatabase('mysql://root:hunter2@db.internal/gateway', await tempDir());
    await expect(attempt).rejects.toThrow(/Unsupported DATABASE_URL scheme "mysql:"/);
    await expect(attempt).rejects.not.toThrow(/hunter2/);
  });

  it('refuses a PostgreSQL URL written wrong or quoted, instead of opening a new file by its name', async () => {
    const dir = await tempDir();
    for (const [url, message] of [
      [
        'postgres:/gw:hunter2@db.internal/gateway',
        /starts with "postgres:" but is not a postgres:\/\/ URL/,
      ],
      [
        '"postgres://gw:hunter2@db.internal:5432/gateway"',
        /neither a postgres:\/\/ URL nor a file path/,
      ],
      [
        "'postgresql://gw:hunter2@db.internal/gateway'",
        /neither a postgres:\/\/ URL nor a file path/,
      ],
      ['file:gateway.db', /Unsupported DATABASE_URL scheme "file:"/],
    ] as const) {
      const attempt = openDatabase(url, dir);
      await expect(attempt).rejects.toThrow(message);
      await expect(attempt).rejects.not.toThrow(/hunter2/);
    }
    // Nothing was created under any of those names (they are relative to the working directory).
    const made = readdirSync(process.cwd()).filter((name) => /postgres|^file:/.test(name));
    expect(made).toEqual([]);
  });

  it('can be closed twice', async () => {
    const database = await openDatabase(':memory:', tmpdir());
    await database.close();
    await expect(database.close()).resolves.toBeUndefined();
  });
});

for (const target of databaseTargets()) {
  describe.skipIf(target.skip)(`storage on ${target.name}`, () => {
    async function open(options?: { migrate?: boolean }) {
      const opened = await target.open(options);
      onTestFinished(opened.cleanup);
      return opened.database;
    }

    it('reports its dialect', async () => {
      expect((await open({ migrate: false })).dialect).toBe(target.dialect);
    });

    it('applies the migrations once; running them again is a no-op', async () => {
      const database = await open({ migrate: false });

      expect(await migrate(database)).toEqual(Object.keys(MIGRATIONS));
      expect(await migrate(database)).toEqual([]);

      const tables = await tableNames(database);
      expect(tables).toEqual(expect.arrayContaining(GATEWAY_TABLES));
      const roles = await database.db.selectFrom('roles').select('id').execute();
      expect(roles).toHaveLength(2);
    });

    const broken = async () => ({
      ...(await loadMigrations()),
      '999-broken': {
        async up(db: Kysely<unknown>) {
          await db.schema.createTable('half_made').addColumn('id', 'text').execute();
          throw new Error('step failed');
        },
      },
    });

    it('rolls back a failing migration and names it', async () => {
      const database = await open();

      await expect(migrate(database, await broken())).rejects.toThrow(
        'Database migration "999-broken" failed: step failed',
      );
      expect(await tableNames(database)).not.toContain('half_made');
      expect(await migrate(database)).toEqual([]);
    });

    it('rolls back every migration of a failed run, leaving a schema the next start can migrate', async () => {
      const database = await open({ migrate: false });

      await expect(migrate(database, await broken())).rejects.toThrow('"999-broken"');
      const tables = await tableNames(database);
      expect(tables).not.toContain('half_made');
      expect(tables).not.toContain('connections');
      expect(await migrate(database)).toEqual(Object.keys(MIGRATIONS));
    });

    it('seeds the member and admin roles', async () => {
      const { db } = await open();
      const roles = await db.selectFrom('roles').selectAll().orderBy('id').execute();

      expect(
        roles.map(({ id, name, patterns }) => ({ id, name, patterns: JSON.parse(patterns) })),
      ).toEqual([
        { id: 'admin', name: 'Admin', patterns: ['**'] },
        { id: 'member', name: 'Member', patterns: [] },
      ]);
      for (const role of roles)
        expect(new Date(role.created_at).toISOString()).toBe(role.created_at);
    });

    it('round-trips the better-auth tables', async () => {
      const { db } = await open();
      const userId = randomUUID();
      const created = new Date(iso());
      await db
        .insertInto('user')
        .values({
          id: userId,
          name: 'Ada Lovelace',
          email: 'ada@example.test',
          emailVerified: true,
          image: null,
          createdAt: created,
          updatedAt: iso(1000),
        })
        .execute();
      await db
        .insertInto('session')
        .values({
          id: 's1',
          expiresAt: iso(3_600_000),
          token: 'session-token',
          createdAt: iso(),
          updatedAt: iso(),
          ipAddress: '127.0.0.1',
          userAgent: 'vitest',
          userId,
        })
        .execute();
      await db
        .insertInto('account')
        .values({
          id: 'a1',
          accountId: 'gh-1',
          providerId: 'github',
          userId,
          accessToken: 'at',
          refreshToken: 'rt',
          idToken: null,
          accessTokenExpiresAt: iso(60_000),
          refreshTokenExpiresAt: null,
          scope: 'repo',
          password: null,
          createdAt: iso(),
          updatedAt: iso(),
        })
        .execute();
      await db
        .insertInto('verification')
        .values({
          id: 'v1',
          identifier: 'ada@example.test',
          value: 'code',
          expiresAt: iso(60_000),
          createdAt: iso(),
          updatedAt: iso(),
        })
        .execute();

      const user = await db.selectFrom('user').selectAll().executeTakeFirstOrThrow();
      expect(Boolean(user.emailVerified)).toBe(true);
      expect(new Date(user.createdAt).toISOString()).toBe(iso());
      expect(new Date(user.updatedAt).toISOString()).toBe(iso(1000));
      expect(user).toMatchObject({ id: userId, name: 'Ada Lovelace', image: null });

      const session = await db.selectFrom('session').selectAll().executeTakeFirstOrThrow();
      expect(new Date(session.expiresAt).toISOString()).toBe(iso(3_600_000));
      expect(session).toMatchObject({ token: 'session-token', userAgent: 'vitest', userId });

      const account = await db.selectFrom('account').selectAll().executeTakeFirstOrThrow();
      expect(
        account.accessTokenExpiresAt && new Date(account.accessTokenExpiresAt).toISOString(),
      ).toBe(iso(60_000));
      expect(account).toMatchObject({ providerId: 'github', refreshToken: 'rt', idToken: null });

      const verification = await db
        .selectFrom('verification')
        .selectAll()
        .executeTakeFirstOrThrow();
      expect(verification).toMatchObject({ identifier: 'ada@example.test', value: 'code' });
    });

    it('defaults emailVerified to false', async () => {
      const { db } = await open();
      await insertUser(db, 'u1');
      const user = await db.selectFrom('user').select('emailVerified').executeTakeFirstOrThrow();
      expect(Boolean(user.emailVerified)).toBe(false);
    });

    it('round-trips every gateway table with identical values', async () => {
      const { db } = await open();
      const userId = await insertUser(db);
      const rows = {
        roles: {
          id: 'ops',
          name: 'Ops',
          patterns: '["ops.**","github.repos.*"]',
          created_at: iso(),
          updated_at: iso(1),
        },
        user_roles: { user_id: userId, role_id: 'ops', assigned_at: iso() },
        connections: {
          id: randomUUID(),
          user_id: userId,
          owner: 'team' as const,
          tool_id: 'linear',
          instance_name: 'Work ✓',
          description: 'team key',
          encrypted_secret: 'aXY=:Y3Q=',
          masked_secret: '••••••••abcd',
          workspace_id: 'ws-1',
          parent_id: null,
          created_at: iso(),
          updated_at: iso(2),
        },
        mcp_endpoints: {
          id: randomUUID(),
          user_id: userId,
          name: 'Claude',
          description: null,
          token_hash: 'a'.repeat(64),
          masked_token: 'gw_mcp_••••••••abcd',
          created_at: iso(),
          last_used_at: iso(5),
          kind: 'token' as const,
          oauth_client_id: null,
          tools: '["notes.**","github.repos.list"]',
          mode: 'discovery',
        },
        service_accounts: {
          id: randomUUID(),
          name: 'ci',
          role_id: 'member',
          created_by: userId,
          created_at: iso(),
        },
        registry_sources: {
          id: 'src-1',
          type: 'plugin',
          namespace: 'acme_tools',
          plugin_id: 'acme',
          created_at: iso(),
          upstream: null,
        },
        executions: {
          id: randomUUID(),
          user_id: userId,
          tool_path: 'acme.items.delete',
          started_at: iso(),
          duration_ms: 1234,
          outcome: 'ok' as const,
          approval: 'approved',
          approved_by: userId,
          arguments: '{"id":"42","token":"[redacted]"}',
          error: null,
          endpoint_id: null,
          client_id: 'https://client.example/metadata.json',
        },
      };
      const apiToken = {
        id: randomUUID(),
        kind: 'service_account' as const,
        user_id: userId,
        service_account_id: rows.service_accounts.id,
        name: 'deploy',
        token_hash: 'b'.repeat(64),
        masked_token: 'gw_sa_••••••••wxyz',
        created_at: iso(),
        last_used_at: null,
        expires_at: iso(86_400_000),
        revoked_at: null,
      };
      const approval = {
        id: randomUUID(),
        execution_id: rows.executions.id,
        user_id: userId,
        tool_path: 'acme.items.delete',
        message: 'Delete item 42?',
        args: '{"id":"42"}',
        status: 'pending' as const,
        decided_by: null,
        created_at: iso(),
        decided_at: null,
        expires_at: iso(300_000),
      };

      await db.insertInto('roles').values(rows.roles).execute();
      await db.insertInto('user_roles').values(rows.user_roles).execute();
      await db.insertInto('connections').values(rows.connections).execute();
      await db.insertInto('mcp_endpoints').values(rows.mcp_endpoints).execute();
      await db.insertInto('service_accounts').values(rows.service_accounts).execute();
      await db.insertInto('api_tokens').values(apiToken).execute();
      await db.insertInto('registry_sources').values(rows.registry_sources).execute();
      await db.insertInto('executions').values(rows.executions).execute();
      await db.insertInto('approvals').values(approval).execute();

      expect(await db.selectFrom('roles').selectAll().where('id', '=', 'ops').execute()).toEqual([
        rows.roles,
      ]);
      expect(await db.selectFrom('user_roles').selectAll().execute()).toEqual([rows.user_roles]);
      expect(await db.selectFrom('connections').selectAll().execute()).toEqual([rows.connections]);
      expect(await db.selectFrom('mcp_endpoints').selectAll().execute()).toEqual([
        rows.mcp_endpoints,
      ]);
      expect(await db.selectFrom('service_accounts').selectAll().execute()).toEqual([
        rows.service_accounts,
      ]);
      expect(await db.selectFrom('api_tokens').selectAll().execute()).toEqual([apiToken]);
      expect(await db.selectFrom('registry_sources').selectAll().execute()).toEqual([
        rows.registry_sources,
      ]);
      // An upstream MCP source (issue 16): its settings and its cached tool list.
      const upstream = {
        id: 'src-2',
        type: 'mcp',
        namespace: 'remote',
        plugin_id: '',
        created_at: iso(),
        upstream: '{"url":"https://mcp.example.com/mcp","auth":{"kind":"none"}}',
      };
      const cached = {
        source_id: 'src-2',
        tools: '[{"name":"search"}]',
        fetched_at: iso(),
        capabilities: '{"prompts":{"listChanged":false}}',
      };
      await db.insertInto('registry_sources').values(upstream).execute();
      await db.insertInto('upstream_tools').values(cached).execute();
      expect(
        await db.selectFrom('registry_sources').selectAll().where('id', '=', 'src-2').execute(),
      ).toEqual([upstream]);
      expect(await db.selectFrom('upstream_tools').selectAll().execute()).toEqual([cached]);
      await db.deleteFrom('registry_sources').where('id', '=', 'src-2').execute();
      expect(await db.selectFrom('upstream_tools').selectAll().execute()).toEqual([]);
      expect(await db.selectFrom('executions').selectAll().execute()).toEqual([rows.executions]);
      expect(await db.selectFrom('approvals').selectAll().execute()).toEqual([approval]);
      const round = {
        id: crypto.randomUUID(),
        execution_id: rows.executions.id,
        expires_at: iso(2),
      };
      await db.insertInto('mcp_rounds').values(round).execute();
      expect(await db.selectFrom('mcp_rounds').selectAll().execute()).toEqual([round]);
    });

    it("defaults a connection's owner to user", async () => {
      const { db } = await open();
      const userId = await insertUser(db);
      await db
        .insertInto('connections')
        .values({
          id: 'c1',
          user_id: userId,
          tool_id: 'github',
          instance_name: 'Personal',
          encrypted_secret: 'x',
          masked_secret: 'y',
          created_at: iso(),
          updated_at: iso(),
        })
        .execute();
      const row = await db.selectFrom('connections').select('owner').executeTakeFirstOrThrow();
      expect(row.owner).toBe('user');
    });

    it('enforces unique emails, token hashes and namespaces', async () => {
      const { db } = await open();
      const userId = await insertUser(db);
      await expect(
        db
          .insertInto('user')
          .values({
            id: 'dup',
            name: 'x',
            email: `${userId}@example.test`,
            createdAt: iso(),
            updatedAt: iso(),
          })
          .execute(),
      ).rejects.toThrow();

      const endpoint = {
        user_id: userId,
        name: 'e',
        token_hash: 'c'.repeat(64),
        masked_token: 'm',
        created_at: iso(),
      };
      await db
        .insertInto('mcp_endpoints')
        .values({ id: 'e1', ...endpoint })
        .execute();
      await expect(
        db
          .insertInto('mcp_endpoints')
          .values({ id: 'e2', ...endpoint })
          .execute(),
      ).rejects.toThrow();

      const token = {
        kind: 'cli' as const,
        user_id: userId,
        name: 't',
        token_hash: 'd'.repeat(64),
        masked_token: 'm',
        created_at: iso(),
      };
      await db
        .insertInto('api_tokens')
        .values({ id: 't1', ...token })
        .execute();
      await expect(
        db
          .insertInto('api_tokens')
          .values({ id: 't2', ...token })
          .execute(),
      ).rejects.toThrow();

      const source = { type: 'plugin', namespace: 'acme', plugin_id: 'acme', created_at: iso() };
      await db
        .insertInto('registry_sources')
        .values({ id: 's1', ...source })
        .execute();
      await expect(
        db
          .insertInto('registry_sources')
          .values({ id: 's2', ...source })
          .execute(),
      ).rejects.toThrow();
    });

    it('rejects values outside the enumerations', async () => {
      const { db } = await open();
      const userId = await insertUser(db);
      await expect(
        sql`insert into connections (id, user_id, owner, tool_id, instance_name, encrypted_secret, masked_secret, created_at, updated_at)
            values ('c1', ${userId}, 'everyone', 't', 'i', 'e', 'm', ${iso()}, ${iso()})`.execute(
          db,
        ),
      ).rejects.toThrow();
      await expect(
        sql`insert into approvals (id, execution_id, user_id, tool_path, message, args, status, created_at, expires_at)
            values ('a1', 'x', ${userId}, 't', 'm', '{}', 'maybe', ${iso()}, ${iso()})`.execute(db),
      ).rejects.toThrow();
    });

    it('deleting a user removes their rows but keeps the audit trail', async () => {
      const { db } = await open();
      const userId = await insertUser(db);
      const other = await insertUser(db);
      const now = iso();
      await db
        .insertInto('user_roles')
        .values({ user_id: userId, role_id: 'admin', assigned_at: now })
        .execute();
      for (const [id, owner] of [
        [userId, userId],
        [other, other],
      ] as const) {
        await db
          .insertInto('connections')
          .values({
            id: `c-${id}`,
            user_id: owner,
            tool_id: 't',
            instance_name: 'i',
            encrypted_secret: 'e',
            masked_secret: 'm',
            created_at: now,
            updated_at: now,
          })
          .execute();
      }
      await db
        .insertInto('mcp_endpoints')
        .values({
          id: 'e1',
          user_id: userId,
          name: 'n',
          token_hash: 'h',
          masked_token: 'm',
          created_at: now,
        })
        .execute();
      await db
        .insertInto('session')
        .values({ id: 's1', expiresAt: now, token: 'tok', createdAt: now, updatedAt: now, userId })
        .execute();
      await db
        .insertInto('executions')
        .values({ id: 'x1', user_id: userId, tool_path: 'a.b', started_at: now, arguments: '{}' })
        .execute();

      await db.deleteFrom('user').where('id', '=', userId).execute();

      expect(await db.selectFrom('user_roles').selectAll().execute()).toEqual([]);
      expect((await db.selectFrom('connections').select('id').execute()).map((r) => r.id)).toEqual([
        `c-${other}`,
      ]);
      expect(await db.selectFrom('mcp_endpoints').selectAll().execute()).toEqual([]);
      expect(await db.selectFrom('session').selectAll().execute()).toEqual([]);
      expect(await db.selectFrom('executions').select('id').execute()).toEqual([{ id: 'x1' }]);
    });

    it('refuses to delete a role that is still assigned', async () => {
      const { db } = await open();
      const userId = await insertUser(db);
      await db
        .insertInto('user_roles')
        .values({ user_id: userId, role_id: 'member', assigned_at: iso() })
        .execute();

      await expect(db.deleteFrom('roles').where('id', '=', 'member').execute()).rejects.toThrow();
    });
  });
}
