import { describe, expect, it } from 'vitest';
import { cliFailure, signInCli } from '#test/support/cli-user.js';
import { startGateway } from '#test/support/gateway-server.js';
import { instantOf, runExecutionsList } from './index.js';

describe('gateway executions list', () => {
  it('lists own calls, everyone’s for admins, with every filter and pages', async () => {
    const { url, gateway } = await startGateway({
      env: { GATEWAY_ADMIN_EMAILS: 'admin@example.test' },
    });
    const admin = await signInCli(url, 'admin@example.test');
    const ada = await signInCli(url, 'ada@example.test');
    const now = Date.now();
    for (const [index, [userId, tool, outcome]] of [
      [ada.userId, 'notes.notes.list', 'ok'],
      [ada.userId, 'github.repos.list', 'error'],
      [admin.userId, 'github.repos.list', 'ok'],
    ].entries()) {
      gateway.services.executions.write({
        id: `00000000-0000-4000-8000-00000000000${index}`,
        userId: userId as string,
        toolPath: tool as string,
        startedAt: new Date(now - (index + 1) * 60_000),
        arguments: { token: 'sk-secret-value' },
        outcome: outcome as 'ok' | 'error',
        durationMs: 12,
        ...(index === 0 ? { endpointId: 'ep-9' } : {}),
      });
    }
    await gateway.services.executions.flush();

    const own = ada.options();
    const mine = await runExecutionsList(own);
    expect(mine.map((item) => item.toolPath)).toEqual(['notes.notes.list', 'github.repos.list']);
    expect(own.io.out()).toMatch(/^ID\s+STARTED\s+USER\s+TOOL\s+OUTCOME\s+MS\s+APPROVAL\n/);
    expect(own.io.out()).not.toContain('sk-secret-value');

    const errors = admin.options();
    const failed = await runExecutionsList({ ...errors, all: true, outcome: 'error', since: '1h' });
    expect(failed.map((item) => item.userId)).toEqual([ada.userId]);

    const paged = admin.options();
    await runExecutionsList({ ...paged, all: true, source: 'github', limit: '1', json: true });
    const first = JSON.parse(paged.io.out()) as { executions: unknown[]; nextCursor: string };
    expect(first.executions).toHaveLength(1);
    const next = admin.options();
    const second = await runExecutionsList({
      ...next,
      all: true,
      source: 'github',
      limit: '1',
      cursor: first.nextCursor,
    });
    expect(second).toHaveLength(1);

    // Every filter of the log, as flags.
    const byTool = await runExecutionsList({ ...admin.options(), all: true, tool: 'github.rep' });
    expect(byTool.map((item) => item.userId)).toEqual([ada.userId, admin.userId]);
    const byUser = await runExecutionsList({ ...admin.options(), user: ada.userId });
    expect(byUser.map((item) => item.toolPath)).toEqual(['notes.notes.list', 'github.repos.list']);
    const byEndpoint = await runExecutionsList({ ...admin.options(), all: true, endpoint: 'ep-9' });
    expect(byEndpoint.map((item) => item.toolPath)).toEqual(['notes.notes.list']);
    const window = await runExecutionsList({
      ...admin.options(),
      all: true,
      since: new Date(now - 150_000).toISOString(),
      until: '1m',
      now: () => new Date(now),
    });
    expect(window.map((item) => item.id)).toEqual(['00000000-0000-4000-8000-000000000001']);
    const badOutcome = await cliFailure(
      runExecutionsList({ ...admin.options(), all: true, outcome: 'ok; --' }),
    );
    expect(badOutcome.exitCode).toBe(1);

    const refused = await cliFailure(runExecutionsList({ ...ada.options(), all: true }));
    expect(refused.exitCode).toBe(4);
    const other = await cliFailure(runExecutionsList({ ...ada.options(), user: admin.userId }));
    expect(other.exitCode).toBe(4);
  });

  it('takes ISO times and durations back from now, and refuses anything else', () => {
    const now = new Date('2026-11-28T12:00:00.000Z');
    expect(instantOf('24h', now, '--since')).toBe('2026-11-27T12:00:00.000Z');
    expect(instantOf('30m', now, '--since')).toBe('2026-11-28T11:30:00.000Z');
    expect(instantOf('2026-11-01T00:00:00Z', now, '--since')).toBe('2026-11-01T00:00:00Z');
    expect(() => instantOf('yesterday', now, '--since')).toThrow(/--since takes an ISO 8601/);
  });
});
