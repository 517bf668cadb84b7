import { describe, expect, it, vi } from 'vitest';
import { postgresTestUrl } from '#test/db/test-database.js';
import { createPostgresTestGateway } from '#test/support/postgres-test-gateway.js';
import { createTestGateway } from '#test/support/test-gateway.js';
import { databaseConnectTimeoutMs, databaseIdleTimeoutMs, databasePoolMax } from '../config/env.js';

// Issue 30 item 4: the pool was fixed at 10 connections, with no connect timeout.

describe('GATEWAY_DATABASE_POOL_MAX and GATEWAY_DATABASE_CONNECT_TIMEOUT_MS', () => {
  it('default to 10 connections and 5000 ms', () => {
    expect(databasePoolMax({})).toBe(10);
    expect(databaseConnectTimeoutMs({})).toBe(5000);
    expect(databasePoolMax({ GATEWAY_DATABASE_POOL_MAX: ' 25 ' })).toBe(25);
    expect(databaseConnectTimeoutMs({ GATEWAY_DATABASE_CONNECT_TIMEOUT_MS: '1500' })).toBe(1500);
  });

  // Issue 30 item 4: pg-pool closed a connection idle for 10 s, so an instance resting between
  // bursts (or a benchmark's setup waiting for the others' rounds) reconnected for each burst.
  it('GATEWAY_DATABASE_IDLE_TIMEOUT_MS defaults to a minute; 0 keeps idle connections', async () => {
    expect(databaseIdleTimeoutMs({})).toBe(60_000);
    expect(databaseIdleTimeoutMs({ GATEWAY_DATABASE_IDLE_TIMEOUT_MS: '0' })).toBe(0);
    expect(databaseIdleTimeoutMs({ GATEWAY_DATABASE_IDLE_TIMEOUT_MS: '1500' })).toBe(1500);
    for (const bad of ['999', '3600001', '-1', '10s']) {
      await expect(
        createTestGateway({ env: { GATEWAY_DATABASE_IDLE_TIMEOUT_MS: bad } }),
      ).rejects.toThrow(
        `GATEWAY_DATABASE_IDLE_TIMEOUT_MS must be 0 or a whole number of milliseconds from 1000 to 3600000, got "${bad}"`,
      );
    }
  });

  it('refuse a malformed value at start, naming the variable', async () => {
    for (const bad of ['0', '-1', '2.5', 'ten', '1001', '1e3']) {
      await expect(createTestGateway({ env: { GATEWAY_DATABASE_POOL_MAX: bad } })).rejects.toThrow(
        `GATEWAY_DATABASE_POOL_MAX must be a whole number of connections from 1 to 1000, got "${bad}"`,
      );
    }
    for (const bad of ['0', '99', '120001', '5s']) {
      await expect(
        createTestGateway({ env: { GATEWAY_DATABASE_CONNECT_TIMEOUT_MS: bad } }),
      ).rejects.toThrow(
        `GATEWAY_DATABASE_CONNECT_TIMEOUT_MS must be a whole number of milliseconds from 100 to 120000, got "${bad}"`,
      );
    }
  });

  const url = postgresTestUrl();
  it.skipIf(url === undefined)('size the PostgreSQL pool: it never opens more', async () => {
    const gw = await createPostgresTestGateway(url as string, {
      env: { GATEWAY_DATABASE_POOL_MAX: '2' },
    });
    const stats = gw.services.database.poolStats;
    if (stats === undefined) throw new Error('no pool');
    let most = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        const response = await gw.request('GET', '/api/policy/roles', { as: 'service' });
        most = Math.max(most, stats().total);
        expect(response.status).toBe(200);
      }),
    );
    await Promise.all(
      Array.from({ length: 6 }, () =>
        gw.services.database.db
          .selectNoFrom((eb) => eb.fn<number>('pg_sleep', [eb.val(0.05)]).as('slept'))
          .execute()
          .then(() => {
            most = Math.max(most, stats().total);
          }),
      ),
    );
    expect(most).toBe(2);
  });

  it.skipIf(url === undefined)('close an idle connection after the idle timeout', async () => {
    const gw = await createPostgresTestGateway(url as string, {
      env: { GATEWAY_DATABASE_IDLE_TIMEOUT_MS: '1000' },
    });
    const stats = gw.services.database.poolStats;
    if (stats === undefined) throw new Error('no pool');
    expect((await gw.request('GET', '/api/policy/roles', { as: 'service' })).status).toBe(200);
    expect(stats().total).toBeGreaterThan(0);
    await vi.waitFor(() => expect(stats().total).toBe(0), { timeout: 10_000, interval: 200 });
  });
});
