/**
 * The execution log across users (issue 38): filters, keyset pages, one call's detail, the
 * streamed export, and the overview's counts, on SQLite and PostgreSQL; attack inputs included.
 */
import { describe, expect, it } from 'vitest';
import { suiteDatabases } from '#test/http-suite/suite-gateway.js';
import { seedExecutions } from '#test/support/seed-executions.js';
import type { TestGateway, TestUser } from '#test/support/test-gateway.js';

interface Item {
  id: string;
  userId: string;
  toolPath: string;
  outcome: string | null;
  endpointId: string | null;
  arguments: unknown;
}
interface Page {
  executions: Item[];
  nextCursor: string | null;
}

const HOUR = 3_600_000;

async function world(open: NonNullable<ReturnType<typeof suiteDatabases>[number]['open']>) {
  const gw = await open();
  const alice = await gw.createUser({ name: 'Alice' });
  const bob = await gw.createUser({ name: 'Bob' });
  const admin = await gw.createUser({ name: 'Admin', admin: true });
  const now = Date.now();
  const rows = [
    { user: alice, tool: 'notes.notes.list', outcome: 'ok', ago: 1, endpoint: 'ep-1', ms: 4 },
    { user: alice, tool: 'notes.notes.create', outcome: 'error', ago: 2, endpoint: null, ms: 40 },
    { user: bob, tool: 'forecast.today', outcome: 'ok', ago: 3, endpoint: 'ep-2', ms: 400 },
    {
      user: bob,
      tool: "x'; drop table executions; --",
      outcome: 'denied',
      ago: 4,
      endpoint: null,
      ms: 1,
    },
    { user: bob, tool: 'notes%.list', outcome: null, ago: 5, endpoint: null, ms: null },
    { user: alice, tool: 'notes.notes.list', outcome: 'ok', ago: 24 * 30, endpoint: null, ms: 2 },
  ] as const;
  const ids: string[] = [];
  for (const [index, row] of rows.entries()) {
    const id = `00000000-0000-4000-8000-0000000000${String(index).padStart(2, '0')}`;
    ids.push(id);
    gw.services.executions.write({
      id,
      userId: row.user.id,
      toolPath: row.tool,
      startedAt: new Date(now - row.ago * HOUR),
      arguments: { n: index, apiKey: 'sk-live-secret', note: '=HYPERLINK("http://evil")' },
      ...(row.outcome === null ? { approval: 'pending' as const } : { outcome: row.outcome }),
      ...(row.ms === null ? {} : { durationMs: row.ms }),
      ...(row.endpoint === null ? {} : { endpointId: row.endpoint }),
    });
  }
  await gw.services.executions.flush();
  return { gw, alice, bob, admin, ids };
}

async function page(gw: TestGateway, as: TestUser, query: Record<string, string>): Promise<Page> {
  const response = await gw.request('GET', `/api/executions?${new URLSearchParams(query)}`, { as });
  expect(response.status, await response.clone().text()).toBe(200);
  return (await response.json()) as Page;
}

for (const database of suiteDatabases('execution log')) {
  describe.skipIf(database.open === undefined)(`the execution log on ${database.name}`, () => {
    it('filters calls waiting for an approval and calls whose approval expired', async () => {
      const { gw, admin } = await world(database.open!);
      const extra = [
        { id: 'a', tool: 'notes.notes.delete', outcome: 'timeout', approval: 'expired' },
        { id: 'b', tool: 'notes.notes.get', outcome: undefined, approval: undefined },
        { id: 'c', tool: 'notes.notes.update', outcome: 'ok', approval: 'approved' },
      ] as const;
      for (const [index, row] of extra.entries()) {
        gw.services.executions.write({
          id: `00000000-0000-4000-8000-0000000001${String(index).padStart(2, '0')}`,
          userId: admin.id,
          toolPath: row.tool,
          startedAt: new Date(Date.now() - HOUR / 2),
          arguments: {},
          ...(row.outcome === undefined ? {} : { outcome: row.outcome }),
          ...(row.approval === undefined ? {} : { approval: row.approval }),
        });
      }
      await gw.services.executions.flush();
      const tools = async (outcome: string) =>
        (await page(gw, admin, { outcome })).executions.map((item) => item.toolPath);
      // `pending` is the overview's: no outcome yet and an approval asked for.
      expect(await tools('pending')).toEqual(['notes%.list']);
      expect(await tools('expired')).toEqual(['notes.notes.delete']);
      expect(await tools('running')).toEqual(['notes.notes.get', 'notes%.list']);
      expect(await tools('timeout')).toEqual(['notes.notes.delete']);
      const refused = await gw.request('GET', '/api/executions?outcome=waiting', { as: admin });
      expect(refused.status).toBe(400);
    });

    it('filters across users by user, tool prefix, source, outcome, endpoint and time', async () => {
      const { gw, alice, admin } = await world(database.open!);
      const tools = async (query: Record<string, string>) =>
        (await page(gw, admin, query)).executions.map((item) => item.toolPath);
      expect(await tools({})).toHaveLength(6);
      expect(await tools({ userId: alice.id })).toEqual([
        'notes.notes.list',
        'notes.notes.create',
        'notes.notes.list',
      ]);
      expect(await tools({ tool: 'notes.notes.c' })).toEqual(['notes.notes.create']);
      expect(await tools({ source: 'forecast' })).toEqual(['forecast.today']);
      expect(await tools({ outcome: 'error' })).toEqual(['notes.notes.create']);
      expect(await tools({ outcome: 'running' })).toEqual(['notes%.list']);
      expect(await tools({ endpointId: 'ep-2' })).toEqual(['forecast.today']);
      const from = new Date(Date.now() - 2.5 * HOUR).toISOString();
      expect(await tools({ from })).toEqual(['notes.notes.list', 'notes.notes.create']);
      expect(await tools({ to: from, source: 'notes' })).toEqual(['notes.notes.list']);
      // Every page of a filtered set, by keyset, adds up to the set.
      const seen: string[] = [];
      let cursor: string | null = '';
      while (cursor !== null) {
        const next: Page = await page(gw, admin, {
          source: 'notes',
          limit: '1',
          ...(cursor === '' ? {} : { cursor }),
        });
        seen.push(...next.executions.map((item) => item.id));
        cursor = next.nextCursor;
      }
      expect(seen).toHaveLength(3);
      expect(new Set(seen).size).toBe(3);
    });

    it('takes SQL metacharacters and wildcards literally, and huge ranges without a 5xx', async () => {
      const { gw, admin } = await world(database.open!);
      const tools = async (query: Record<string, string>) =>
        (await page(gw, admin, query)).executions.map((item) => item.toolPath);
      expect(await tools({ tool: "x'; drop table executions; --" })).toEqual([
        "x'; drop table executions; --",
      ]);
      expect(await tools({ tool: 'notes%' })).toEqual(['notes%.list']);
      expect(await tools({ tool: '%' })).toEqual([]);
      expect(await tools({ tool: '_otes' })).toEqual([]);
      expect(await tools({ source: "' or 1=1 --" })).toEqual([]);
      expect(await tools({ userId: "' or ''='" })).toEqual([]);
      expect(
        await tools({ from: '0000-01-01T00:00:00Z', to: '9999-12-31T23:59:59.999Z' }),
      ).toHaveLength(6);
      const bads: Record<string, string>[] = [
        { from: 'yesterday' },
        { to: '1e999' },
        { from: '+275760-09-13T00:00:00Z' },
        { outcome: 'ok; --' },
        { limit: '100000' },
        { tool: 'x'.repeat(5000) },
        { cursor: Buffer.from('["a"]').toString('base64url') },
      ];
      for (const bad of bads) {
        const response = await gw.request('GET', `/api/executions?${new URLSearchParams(bad)}`, {
          as: admin,
        });
        expect(response.status, JSON.stringify(bad)).toBe(400);
      }
      // The table is still there.
      expect(await tools({})).toHaveLength(6);
    });

    it('pages a rare prefix and a common one alike, newest first (two read paths)', async () => {
      const gw = await database.open!();
      const admin = await gw.createUser({ admin: true });
      await seedExecutions(gw.services.database, 3000, new Date());
      const all: Page = await page(gw, admin, { tool: 'src', limit: '200' });
      // `src` matches all 3000 (the newest-first walk); `src1.` 600 (a range of the tool index).
      const expected = all.executions.filter((item) => item.toolPath.startsWith('src1.'));
      const seen: string[] = [];
      let cursor: string | null = '';
      while (cursor !== null && seen.length < expected.length) {
        const next: Page = await page(gw, admin, {
          tool: 'src1.',
          limit: '7',
          ...(cursor === '' ? {} : { cursor }),
        });
        seen.push(...next.executions.map((item) => item.id));
        cursor = next.nextCursor;
      }
      expect(seen.slice(0, expected.length)).toEqual(expected.map((item) => item.id));
      expect((await page(gw, admin, { tool: 'nothing.' })).executions).toEqual([]);
    });

    it("never shows a non-admin another user's calls", async () => {
      const { gw, alice, bob, ids } = await world(database.open!);
      const anyone = await gw.request('GET', '/api/executions', { as: alice });
      expect(anyone.status).toBe(403);
      const theirs = await gw.request('GET', `/api/executions?userId=${bob.id}`, { as: alice });
      expect(theirs.status).toBe(403);
      const own = await page(gw, alice, { userId: alice.id, source: 'forecast' });
      expect(own.executions).toEqual([]);
      const bobsCall = ids[2] as string;
      const detail = await gw.request('GET', `/api/executions/${bobsCall}`, { as: alice });
      expect(detail.status).toBe(404);
      expect(await detail.text()).not.toContain('forecast');
      const exported = await gw.request('GET', '/api/executions/export', { as: alice });
      expect(exported.status).toBe(403);
      const overview = await gw.request('GET', '/api/overview', { as: alice });
      expect(overview.status).toBe(403);
    });

    it('shows one call in detail, arguments redacted', async () => {
      const { gw, alice, ids } = await world(database.open!);
      const response = await gw.request('GET', `/api/executions/${ids[0]}`, { as: alice });
      expect(response.status).toBe(200);
      const { execution } = (await response.json()) as { execution: Item & { durationMs: number } };
      expect(execution).toMatchObject({
        id: ids[0],
        toolPath: 'notes.notes.list',
        outcome: 'ok',
        durationMs: 4,
        endpointId: 'ep-1',
        arguments: { n: 0, apiKey: '[redacted]' },
      });
      expect((await gw.request('GET', "/api/executions/'or'1'='1", { as: alice })).status).toBe(
        404,
      );
    });

    it('exports the filtered set as JSON Lines and as CSV safe for spreadsheets', async () => {
      const { gw, admin } = await world(database.open!);
      const jsonl = await gw.request('GET', '/api/executions/export?source=notes', { as: admin });
      expect(jsonl.status).toBe(200);
      expect(jsonl.headers.get('content-type')).toBe('application/x-ndjson');
      const lines = (await jsonl.text()).trim().split('\n');
      expect(lines.map((line) => (JSON.parse(line) as Item).toolPath)).toEqual([
        'notes.notes.list',
        'notes.notes.create',
        'notes.notes.list',
      ]);
      expect(lines.join('')).not.toContain('sk-live-secret');

      const csv = await gw.request('GET', '/api/executions/export?format=csv&outcome=denied', {
        as: admin,
      });
      expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
      expect(csv.headers.get('content-disposition')).toMatch(
        /^attachment; filename="executions-.*\.csv"$/,
      );
      const rows = (await csv.text()).trim().split('\r\n');
      expect(rows[0]).toBe(
        'id,startedAt,userId,toolPath,outcome,durationMs,approval,approvedBy,endpointId,clientId,error,arguments',
      );
      expect(rows).toHaveLength(2);
      expect(rows[1]).toContain('"x\'; drop table executions; --"');
      // The formula in the arguments is inside a JSON cell starting with `{`: not a formula.
      expect(rows[1]).toContain('""note"":""=HYPERLINK(');
      expect(rows[1]).not.toContain('sk-live-secret');
    });

    it('counts the last day by hour and outcome, with the top tools', async () => {
      const { gw, admin } = await world(database.open!);
      const response = await gw.request('GET', '/api/overview', { as: admin });
      expect(response.status).toBe(200);
      const overview = (await response.json()) as {
        last24h: { counts: Record<string, number> }[];
        last7d: unknown[];
        topByCalls: {
          toolPath: string;
          calls: number;
          p50Ms: number | null;
          p95Ms: number | null;
        }[];
        topByErrors: { toolPath: string; errors: number }[];
      };
      expect(overview.last24h).toHaveLength(24);
      expect(overview.last7d).toHaveLength(168);
      const sum = (kind: string) =>
        overview.last24h.reduce((total, hour) => total + (hour.counts[kind] ?? 0), 0);
      expect([sum('ok'), sum('error'), sum('denied'), sum('pending')]).toEqual([2, 1, 1, 1]);
      expect(overview.topByCalls[0]).toMatchObject({ calls: 1 });
      expect(overview.topByCalls.map((tool) => tool.toolPath)).not.toContain(undefined);
      expect(overview.topByErrors).toEqual([
        expect.objectContaining({ toolPath: 'notes.notes.create', errors: 1 }),
      ]);
      const forecast = overview.topByCalls.find((tool) => tool.toolPath === 'forecast.today');
      expect(forecast?.p50Ms).toBeGreaterThanOrEqual(200);
      expect(forecast?.p50Ms).toBeLessThanOrEqual(500);
      expect(forecast?.p95Ms).toBeGreaterThanOrEqual(forecast?.p50Ms ?? 0);
      expect(forecast?.p95Ms).toBeLessThanOrEqual(500);
      // 4 ms and 40 ms fall in different buckets: the histogram tells them apart.
      const list = overview.topByCalls.find((tool) => tool.toolPath === 'notes.notes.list');
      const create = overview.topByCalls.find((tool) => tool.toolPath === 'notes.notes.create');
      expect(list?.p95Ms).toBeLessThanOrEqual(5);
      expect(create?.p50Ms).toBeGreaterThanOrEqual(20);
    });
  });
}
