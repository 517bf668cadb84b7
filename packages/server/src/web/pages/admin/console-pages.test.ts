/**
 * The admin console's pages as served (issue 38), after real MCP calls: the overview counts
 * calls by outcome with approvals pending and expired, and shows upstream health, the
 * connections needing a reconnect and the approvals waiting; the log page narrows by each of its
 * filters; a call's detail shows its arguments redacted, the approval decision, the duration,
 * the endpoint and the client; Explain answers for a service account too, with no key shown.
 * (The browser walk is in e2e/console.e2e.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { browser } from '#test/auth/oauth-test-kit.js';
import { connectV1, startMcpGateway } from '#test/mcp/mcp-test-kit.js';
import { seedExecutions } from '#test/support/seed-executions.js';
import { startFakeUpstream } from '#test/upstream/fake-upstream.js';
import { insertPendingApproval } from '../../../approvals/store.js';
import { markReconnect } from '../../../vending/reconnect-marks.js';

const HOUR = 3_600_000;

interface Overview {
  last24h: { counts: Record<string, number> }[];
  pendingApprovals: { count: number; oldest: { id: string; toolPath: string }[] };
  reconnects: { userId: string; provider: string }[];
}

/** A gateway with an admin signed in to the web app and an admin calling tools over MCP. */
async function console_() {
  const gw = await startMcpGateway({
    env: { GATEWAY_APPROVAL_TIMEOUT_SECONDS: '0.3', GATEWAY_UPSTREAM_ALLOW_PRIVATE: 'true' },
  });
  const session = browser(gw.gateway.fetch, gw.url);
  const signedUp = await session.browse('/sign-up', {
    form: { name: 'Ada', email: 'ada@example.test', password: 'correct horse battery' },
  });
  expect(signedUp.status).toBeLessThan(400);
  const caller = await gw.user({ admin: true });
  const { client } = await connectV1(gw.url, caller.mcpToken);
  const page = async (path: string) => {
    const response = await session.browse(path);
    expect(response.status, path).toBe(200);
    return response.text();
  };
  return { gw, caller, client, page };
}

describe('Admin → Overview', () => {
  it('counts outcomes with approvals pending and expired, and shows what needs an admin', async () => {
    const { gw, caller, client, page } = await console_();
    const fake = await startFakeUpstream([
      {
        name: 'flaky',
        behaviour: { kind: 'garbage' },
        annotations: { readOnlyHint: true },
      },
    ]);
    const registered = await gw.gateway.request('POST', '/api/registry/sources', {
      as: caller,
      body: { type: 'mcp', id: 'flaky', namespace: 'flaky', url: fake.url },
    });
    expect(registered.status).toBe(201);
    expect(
      (await client.callTool({ name: 'demo.echo.say', arguments: { text: 'hi' } })).isError,
    ).toBeFalsy();
    // The fixture's delete asks for approval; nobody answers within 0.3 s: it expires.
    const expired = await client.callTool({
      name: 'demo.files.delete',
      arguments: { name: 'a.txt' },
    });
    expect(expired.isError).toBe(true);
    // Failures in a row (a fresh session's count): the upstream is backed off, shown degraded.
    let failed = 0;
    for (; failed < 10; failed++) {
      const result = await client.callTool({ name: 'flaky.flaky', arguments: {} });
      if (JSON.stringify(result.content).includes('is degraded')) break;
    }

    const { db } = gw.gateway.services.database;
    const now = new Date();
    const waiting = await insertPendingApproval(db, {
      id: crypto.randomUUID(),
      executionId: '00000000-0000-4000-8000-00000000a001',
      userId: caller.id,
      toolPath: 'demo.files.delete',
      message: 'Delete b.txt?',
      args: { name: 'b.txt' },
      createdAt: now,
      expiresAt: new Date(now.getTime() + 600_000),
    });
    // Its call, recorded as the recorder does while it waits.
    gw.gateway.services.executions.write({
      id: '00000000-0000-4000-8000-00000000a001',
      userId: caller.id,
      toolPath: 'demo.files.delete',
      startedAt: now,
      arguments: { name: 'b.txt' },
      approval: 'pending',
    });
    await gw.gateway.services.executions.flush();
    // A linked account whose provider refused a refresh.
    const accountId = crypto.randomUUID();
    await db
      .insertInto('account')
      .values({
        id: accountId,
        accountId: 'gcp-account',
        providerId: 'gcp',
        userId: caller.id,
        accessToken: 'stored-access-1',
        refreshToken: 'stored-refresh-1',
        idToken: null,
        accessTokenExpiresAt: null,
        refreshTokenExpiresAt: null,
        scope: null,
        password: null,
        createdAt: now.toISOString(),
        updatedAt: now.toISOString(),
      })
      .execute();
    await markReconnect(
      db,
      { id: accountId, userId: caller.id, providerId: 'gcp', accessToken: 'stored-access-1' },
      'invalid_grant',
    );

    const read = async () =>
      (await (await gw.gateway.request('GET', '/api/overview', { as: caller })).json()) as Overview;
    const overview = await read();
    const sum = (kind: string) =>
      overview.last24h.reduce((total, hour) => total + (hour.counts[kind] ?? 0), 0);
    expect({
      ok: sum('ok'),
      error: sum('error'),
      pending: sum('pending'),
      expired: sum('expired'),
    }).toEqual({ ok: 1, error: failed + 1, pending: 1, expired: 1 });
    expect(failed).toBeLessThan(10);
    expect(overview.pendingApprovals).toEqual({
      count: 1,
      oldest: [expect.objectContaining({ id: waiting.id, toolPath: 'demo.files.delete' })],
    });
    expect(overview.reconnects).toEqual([
      expect.objectContaining({ userId: caller.id, provider: 'gcp' }),
    ]);

    const html = await page('/admin');
    expect(html).toContain(
      `<desc id="day-desc">${failed + 4} calls: 1 ok, ${failed + 1} error, 0 denied, 1 approval pending, 1 approval expired.`,
    );
    expect(html).toMatch(/data-health="flaky">.*degraded/s);
    expect(html).toContain(`data-reconnect="gcp"`);
    expect(html).toContain(`data-waiting="${waiting.id}"`);
    expect(html).toMatch(/<strong>1<\/strong><a href="#health-title">upstreams degraded/);
    // The expired count links to the log narrowed to those calls.
    const expiredLog = html.match(/<strong>1<\/strong><a href="([^"]+)">approvals expired in 24 h/);
    expect(expiredLog?.[1]).toMatch(/^\/admin\/executions\?outcome=expired&amp;from=/);
    const log = await page((expiredLog?.[1] ?? '').replaceAll('&amp;', '&'));
    expect([...log.matchAll(/<tr data-execution="([^"]+)"/g)]).toHaveLength(1);
    expect(log).toMatch(/<code>demo\.files\.delete<\/code>.*<td>expired<\/td>/s);

    // Admin → Sources filters on the server too (the script does it as one types).
    const listed = async (query: string) =>
      [...(await page(`/admin/sources?${query}`)).matchAll(/<tr data-source="([^"]+)"/g)].map(
        (match) => match[1],
      );
    expect(await listed('state=degraded')).toEqual(['flaky']);
    expect(await listed('state=ok')).toEqual([]);
    expect(await listed('q=flaky.fla')).toEqual(['flaky']);
    expect(await listed('q=nothing-like-it')).toEqual([]);

    // Reconnected (a new token stored): the mark no longer applies and the overview says so.
    await db
      .updateTable('account')
      .set({ accessToken: 'stored-access-2' })
      .where('id', '=', accountId)
      .execute();
    expect((await read()).reconnects).toEqual([]);
    expect(await page('/admin')).toContain('None: every linked account renews.');
  });
});

describe('Admin → Execution log', () => {
  it('narrows by user, tool, source, outcome, endpoint and time, and shows a call in detail', async () => {
    const { gw, caller, client, page } = await console_();
    const other = await gw.user();
    await client.callTool({
      name: 'demo.echo.say',
      arguments: { text: 'hi', apiKey: 'sk-live-0123456789abcdef' },
    });
    const base = Date.now();
    const rows = [
      {
        id: 'b1',
        user: other.id,
        tool: 'notes.notes.list',
        outcome: 'ok',
        ago: 3,
        endpoint: 'ep-1',
      },
      {
        id: 'b2',
        user: other.id,
        tool: 'notes.notes.create',
        outcome: 'error',
        ago: 5,
        endpoint: null,
      },
      {
        id: 'b3',
        user: caller.id,
        tool: 'forecast.today',
        outcome: 'denied',
        ago: 30,
        endpoint: 'ep-2',
      },
    ] as const;
    for (const row of rows) {
      gw.gateway.services.executions.write({
        id: `00000000-0000-4000-8000-0000000000${row.id}`,
        userId: row.user,
        toolPath: row.tool,
        startedAt: new Date(base - row.ago * HOUR),
        arguments: { token: 'sk-live-0123456789abcdef', note: 'kept' },
        outcome: row.outcome,
        durationMs: 42,
        approval: 'approved',
        approvedBy: caller.id,
        ...(row.endpoint === null
          ? {}
          : { endpointId: row.endpoint, clientId: `client-${row.endpoint}` }),
      });
    }
    await gw.gateway.services.executions.flush();
    const shown = async (query: Record<string, string>) => {
      const html = await page(`/admin/executions?${new URLSearchParams(query)}`);
      return [...html.matchAll(/data-execution="([^"]+)"/g)].map((match) => match[1]?.slice(-2));
    };
    expect(await shown({})).toHaveLength(4);
    expect(await shown({ userId: other.id })).toEqual(['b1', 'b2']);
    expect(await shown({ tool: 'notes.notes.c' })).toEqual(['b2']);
    expect(await shown({ source: 'forecast' })).toEqual(['b3']);
    expect(await shown({ outcome: 'denied' })).toEqual(['b3']);
    expect(await shown({ outcome: 'error', source: 'notes' })).toEqual(['b2']);
    expect(await shown({ endpointId: 'ep-2' })).toEqual(['b3']);
    // The form's datetime-local values, read as UTC.
    const at = (ago: number) => new Date(base - ago * HOUR).toISOString().slice(0, 16);
    expect(await shown({ from: at(10), to: at(4) })).toEqual(['b2']);
    // The page's export links carry the same filters.
    expect(await page(`/admin/executions?outcome=error&source=notes`)).toContain(
      'href="/api/executions/export?source=notes&amp;outcome=error&amp;format=csv"',
    );

    const detail = await page('/admin/executions/00000000-0000-4000-8000-0000000000b1');
    expect(detail).toContain('<code>notes.notes.list</code>');
    expect(detail).toContain(`approved by <code>${caller.id}</code>`);
    expect(detail).toContain('<dt>Duration</dt><dd>42 ms</dd>');
    expect(detail).toContain('<dt>Endpoint</dt><dd><code>ep-1</code></dd>');
    expect(detail).toContain('<dt>Client</dt><dd><code>client-ep-1</code></dd>');
    expect(detail).toContain('&quot;note&quot;: &quot;kept&quot;');
    expect(detail).not.toContain('sk-live-0123456789abcdef');
    // A real call's record: its arguments as recorded, the key redacted, its own endpoint.
    const own = await page(`/admin/executions?userId=${caller.id}&tool=demo.echo`);
    const id = /data-execution="([^"]+)"/.exec(own)?.[1] ?? '';
    const real = await page(`/admin/executions/${id}`);
    expect(real).toContain('&quot;text&quot;: &quot;hi&quot;');
    expect(real).toContain('[redacted]');
    expect(real).not.toContain('sk-live-0123456789abcdef');
    expect(real).toContain('<dt>Approval</dt><dd>not asked</dd>');
    expect(real).toMatch(/<dt>Endpoint<\/dt><dd><code>[^<]+<\/code><\/dd>/);
  });
});

describe('Admin → Execution log, page by page', () => {
  it('walks a filtered log 50 calls a page by its keyset links, each call once', async () => {
    const { gw, page } = await console_();
    await seedExecutions(gw.gateway.services.database, 400, new Date());
    const all = await gw.gateway.request('GET', '/api/executions?source=src2&limit=200', {
      as: 'service',
    });
    const expected = ((await all.json()) as { executions: { id: string }[] }).executions.map(
      (item) => item.id,
    );
    expect(expected.length).toBeGreaterThan(50);
    const seen: string[] = [];
    let next: string | undefined = '/admin/executions?source=src2';
    let pages = 0;
    while (next !== undefined && pages < 10) {
      const html = await page(next);
      pages += 1;
      const rows = [...html.matchAll(/data-execution="([^"]+)"/g)].map((match) => match[1] ?? '');
      expect(rows.length).toBeLessThanOrEqual(50);
      seen.push(...rows);
      const link = /<a class="button secondary" href="([^"]+)">Older calls<\/a>/.exec(html)?.[1];
      next = link?.replaceAll('&amp;', '&');
      if (next !== undefined) expect(next).toContain('source=src2');
    }
    expect(seen).toEqual(expected);
    expect(pages).toBe(Math.ceil(expected.length / 50));
  });
});

describe('Admin → Explain', () => {
  it('explains for a service account as well as a user, showing no key', async () => {
    const { gw, caller, page } = await console_();
    const created = await gw.gateway.request('POST', '/api/service-accounts', {
      as: caller,
      body: { name: 'nightly', roleId: 'member' },
    });
    expect(created.status).toBe(201);
    const account = (await created.json()) as { id: string; key: string };
    const form = await page('/admin/explain');
    expect(form).toContain(`<option value="sa:${account.id}">nightly</option>`);
    const answer = await page(
      `/admin/explain?${new URLSearchParams({ who: `sa:${account.id}`, tool: 'demo.echo.say' })}`,
    );
    expect(answer).toContain(
      `For service account <code>${account.id}</code>, role <code>member</code>.`,
    );
    expect(answer).toContain('data-explanation="demo.echo.say"');
    expect(answer).toContain('data-visible="false"');
    expect(answer).not.toContain(account.key);
    const forUser = await page(
      `/admin/explain?${new URLSearchParams({ who: `user:${caller.id}`, tool: 'demo.echo.say' })}`,
    );
    expect(forUser).toContain('data-visible="true"');
    expect(forUser).not.toContain(caller.mcpToken);
  });
});
