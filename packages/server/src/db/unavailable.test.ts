import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { describe, expect, it, onTestFinished } from 'vitest';
import { freePort } from '#test/support/free-port.js';
import { createTestGateway } from '#test/support/test-gateway.js';
import { isDatabaseUnavailable } from './unavailable.js';

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'gateway-unavailable-'));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** What `action` throws. */
function thrownBy(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  throw new Error('nothing thrown');
}

describe('which failures mean the database is unavailable (isDatabaseUnavailable)', () => {
  it('a PostgreSQL server not listening, directly or as the cause of another error', async () => {
    const client = new pg.Client({
      connectionString: `postgres://nobody@127.0.0.1:${await freePort()}/none`,
    });
    const refused = await client.connect().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(isDatabaseUnavailable(refused)).toBe(true);
    expect(isDatabaseUnavailable(new Error('while storing', { cause: refused }))).toBe(true);
  });

  it('a SQLite file locked past the busy timeout, or read-only; not a wrong query', async () => {
    const file = join(await tempDir(), 'gateway.db');
    const holder = new Database(file);
    onTestFinished(() => {
      holder.close();
    });
    holder.exec('create table t (x integer)');
    const other = new Database(file);
    onTestFinished(() => {
      other.close();
    });
    other.pragma('busy_timeout = 0');
    holder.exec('begin exclusive');
    const busy = thrownBy(() => other.exec('insert into t values (1)'));
    expect((busy as { code?: string }).code).toMatch(/^SQLITE_BUSY/);
    expect(isDatabaseUnavailable(busy)).toBe(true);
    holder.exec('rollback');

    const readOnly = new Database(file, { readonly: true });
    onTestFinished(() => {
      readOnly.close();
    });
    const refused = thrownBy(() => readOnly.exec('insert into t values (1)'));
    expect((refused as { code?: string }).code).toMatch(/^SQLITE_READONLY/);
    expect(isDatabaseUnavailable(refused)).toBe(true);

    expect(isDatabaseUnavailable(thrownBy(() => holder.exec('selec 1')))).toBe(false);
    expect(isDatabaseUnavailable(thrownBy(() => holder.exec('insert into nope values (1)')))).toBe(
      false,
    );
    expect(isDatabaseUnavailable(new Error('boom'))).toBe(false);
    expect(isDatabaseUnavailable('ECONNREFUSED')).toBe(false);
  });
});

describe('a SQLite file locked by another process', () => {
  it('answers a write with 503 database_unavailable and Retry-After, not 500, and serves once released', async () => {
    const file = join(await tempDir(), 'gateway.db');
    const gw = await createTestGateway({ databaseUrl: file });
    const holder = new Database(file);
    onTestFinished(() => {
      holder.close();
    });
    holder.pragma('busy_timeout = 0');
    holder.exec('begin exclusive');

    const role = { id: 'support', name: 'Support', patterns: ['notes.notes.*'] };
    // The gateway waits its busy timeout (5 s), then gives up.
    const refused = await gw.request('POST', '/api/policy/roles', { as: 'service', body: role });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await refused.json()).toEqual({
      error: {
        code: 'database_unavailable',
        message: "The gateway's database is unavailable for the moment; retry shortly",
      },
    });
    expect(gw.logs()).not.toContain('unhandled error');

    holder.exec('rollback');
    const created = await gw.request('POST', '/api/policy/roles', { as: 'service', body: role });
    expect(created.status).toBe(201);
  });
});
