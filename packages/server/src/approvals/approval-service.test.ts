/**
 * The approvals' background work on PostgreSQL: waiters poll, and each poll makes sure the
 * `LISTEN` connection is up, without waiting for it. A reconnect that fails must be logged, not
 * end the process.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createPostgresTestDatabase, postgresTestUrl } from '#test/db/test-database.js';
import { createLogger } from '../http/logger.js';
import { Redactor } from '../http/redact.js';
import { ApprovalService } from './approval-service.js';

const pgUrl = postgresTestUrl();

describe.skipIf(!pgUrl)('ApprovalService on PostgreSQL', () => {
  it('keeps waiting when the listener cannot reconnect, and logs why', async () => {
    const { database, url, drop } = await createPostgresTestDatabase(pgUrl ?? '');
    onTestFinished(drop);
    const dir = await mkdtemp(join(tmpdir(), 'gateway-listener-'));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    // The listener's URL names a root certificate, as a deployment verifying its server's does
    // (`sslmode=disable`: the test server has no TLS; the driver reads the file all the same).
    const ca = join(dir, 'root.crt');
    await writeFile(ca, 'a root certificate\n');
    const name = `approvals-${randomBytes(6).toString('hex')}`;
    const listenerUrl = new URL(url);
    listenerUrl.searchParams.set('uselibpqcompat', 'true');
    listenerUrl.searchParams.set('sslmode', 'disable');
    listenerUrl.searchParams.set('sslrootcert', ca);
    listenerUrl.searchParams.set('application_name', name);
    const lines: string[] = [];
    const logger = createLogger({ write: (line) => lines.push(line) }, new Redactor());
    const approvals = new ApprovalService({
      database,
      logger,
      postgresUrl: listenerUrl.href,
      pollIntervalMs: 50,
    });
    onTestFinished(() => approvals.close());

    let pendingId: string | undefined;
    const waiting = approvals.request({
      executionId: 'e1',
      userId: 'u1',
      toolPath: 'demo.files.delete',
      message: 'Delete report.pdf?',
      args: { name: 'report.pdf' },
      timeoutMs: 30_000,
      onPending: (approval) => {
        pendingId = approval.id;
      },
    });
    await expect.poll(() => pendingId).toBeDefined();

    // The certificate goes (rotated, unmounted), then the listener's connection drops.
    await rm(ca);
    const { rows } = await sql<{ ended: boolean }>`
      select pg_terminate_backend(pid) as ended from pg_stat_activity where application_name = ${name}
    `.execute(database.db);
    expect(rows).toEqual([{ ended: true }]);
    await expect
      .poll(() => lines.join(''), { timeout: 5000 })
      .toContain('PostgreSQL listener could not connect');
    expect(lines.join('')).toContain('no such file or directory');

    // Still serving: a decision made here wakes the waiter.
    await approvals.decide(pendingId ?? '', 'approve', 'bob');
    expect(await waiting).toMatchObject({ status: 'approved', decidedBy: 'bob' });
  });
});
