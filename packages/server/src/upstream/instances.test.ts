import { describe, expect, it } from 'vitest';
import { connectV2 } from '#test/mcp/mcp-test-kit.js';
import { rememberSecret } from '#test/support/known-secrets.js';
import { sharedDatabaseTargets } from '#test/support/shared-database.js';
import {
  createTestGateway,
  TEST_SERVICE_SECRET,
  type TestGateway,
} from '#test/support/test-gateway.js';
import { startFakeUpstream } from '#test/upstream/fake-upstream.js';
import { startSdkUpstream } from '#test/upstream/sdk-upstream.js';
import { createEndpoint } from '../mcp-endpoints/index.js';

const targets = sharedDatabaseTargets();

async function instance(databaseUrl: string, refreshSeconds: string): Promise<TestGateway> {
  const gateway = await createTestGateway({
    databaseUrl,
    host: '127.0.0.1',
    port: 0,
    baseUrl: undefined,
    registrySyncSeconds: 0.05,
    env: {
      GATEWAY_UPSTREAM_ALLOW_PRIVATE: 'true',
      GATEWAY_UPSTREAM_REFRESH_SECONDS: refreshSeconds,
    },
  });
  await gateway.start();
  return gateway;
}

const paths = (gateway: TestGateway) =>
  gateway.services.plugins
    .tools()
    .map((tool) => tool.path)
    .filter((path) => path.startsWith('remote.'));

describe.each(targets)('upstream sources across instances on $name', ({ skip, databaseUrl }) => {
  it.skipIf(skip)('are served everywhere from the stored tool list', async () => {
    const fake = await startFakeUpstream([{ name: 'search', behaviour: { kind: 'answer' } }]);
    const url = await databaseUrl();
    const a = await instance(url, '0.2');
    const b = await instance(url, '0');
    const registered = await a.request('POST', '/api/registry/sources', {
      as: 'service',
      body: { type: 'mcp', approval: 'listed', id: 'remote', namespace: 'remote', url: fake.url },
    });
    expect(registered.status).toBe(201);
    await expect.poll(() => paths(b), { timeout: 15_000 }).toEqual(['remote.search']);

    // A's schedule finds a new tool and stores it; B mounts it without asking the upstream.
    fake.setTools([
      { name: 'search', behaviour: { kind: 'answer' } },
      { name: 'fetch', behaviour: { kind: 'answer' } },
    ]);
    await expect
      .poll(() => paths(b), { timeout: 15_000 })
      .toEqual(['remote.fetch', 'remote.search']);

    const removed = await a.request('DELETE', '/api/registry/sources/remote', {
      as: { token: TEST_SERVICE_SECRET },
    });
    expect(removed.status).toBe(200);
    await expect.poll(() => paths(b), { timeout: 15_000 }).toEqual([]);
    expect(paths(a)).toEqual([]);
  });

  it.skipIf(skip)(
    "open a 2025 session for each of an instance's first concurrent calls, none shared",
    async () => {
      const upstream = await startSdkUpstream({ sessionTool: 4 });
      const url = await databaseUrl();
      const a = await instance(url, '0');
      const registered = await a.request('POST', '/api/registry/sources', {
        as: 'service',
        body: {
          type: 'mcp',
          approval: 'listed',
          id: 'remote',
          namespace: 'remote',
          url: upstream.url,
        },
      });
      expect(registered.status).toBe(201);
      // B serves the stored list without having asked the upstream which revision it speaks.
      const b = await instance(url, '0');
      await expect.poll(() => paths(b), { timeout: 15_000 }).toContain('remote.session');
      const alice = await b.createUser({ admin: true });
      const created = await createEndpoint(b.services.database.db, { userId: alice.id, name: 't' });
      if (!created.ok) throw new Error(created.problem);
      rememberSecret(created.endpoint.token);
      const client = await connectV2(b.services.baseUrl, created.endpoint.token);

      const answers = await Promise.all(
        Array.from({ length: 4 }, () => client.callTool({ name: 'remote.session', arguments: {} })),
      );
      const sessions = answers.map((answer) => {
        expect(answer.isError).toBeFalsy();
        return (answer.content as { text: string }[])[0]?.text;
      });
      // A 2025 session serves one call at a time: four calls at once ran in four sessions.
      expect(new Set(sessions).size).toBe(4);
    },
  );

  it.skipIf(skip)(
    'keep a change of settings made here when a sync read the rows before it',
    async () => {
      // Under load the registry sync (every 50 ms here) read the rows, the PATCH landed while it
      // read the cached tool lists, and the sync then put the old settings back: the PATCH
      // answered them and the instance served them until its next pass (issue 35).
      const fake = await startFakeUpstream([{ name: 'wipe', behaviour: { kind: 'answer' } }]);
      const gateway = await createTestGateway({
        databaseUrl: await databaseUrl(),
        env: { GATEWAY_UPSTREAM_ALLOW_PRIVATE: 'true' },
      });
      await gateway.request('POST', '/api/registry/sources', {
        as: 'service',
        body: { type: 'mcp', approval: 'listed', id: 'remote', namespace: 'remote', url: fake.url },
      });
      const { upstreams, database, plugins } = gateway.services;
      const editsBefore = upstreams.edits;
      const rowsBefore = await database.db.selectFrom('registry_sources').selectAll().execute();
      const changed = await gateway.request('PATCH', '/api/registry/sources/remote', {
        as: 'service',
        body: { approvalRequired: ['wipe'] },
      });
      expect(changed.status).toBe(200);
      await upstreams.sync(rowsBefore, editsBefore);
      expect(plugins.tool('remote.wipe')?.destructive).toBe(true);
      // The next pass reads rows that hold the change.
      await upstreams.sync(
        await database.db.selectFrom('registry_sources').selectAll().execute(),
        upstreams.edits,
      );
      expect(plugins.tool('remote.wipe')?.destructive).toBe(true);
    },
  );

  it.skipIf(skip)('take a change of settings on one instance to every instance', async () => {
    const fake = await startFakeUpstream([{ name: 'wipe', behaviour: { kind: 'answer' } }]);
    const url = await databaseUrl();
    const a = await instance(url, '0');
    const b = await instance(url, '0');
    await a.request('POST', '/api/registry/sources', {
      as: 'service',
      body: { type: 'mcp', approval: 'listed', id: 'remote', namespace: 'remote', url: fake.url },
    });
    const asks = (gateway: TestGateway) =>
      gateway.services.plugins.tool('remote.wipe')?.destructive;
    await expect.poll(() => asks(b), { timeout: 15_000 }).toBe(false);

    const changed = await a.request('PATCH', '/api/registry/sources/remote', {
      as: 'service',
      body: { approvalRequired: ['wipe'], serviceAccountAllowed: true },
    });
    expect(changed.status).toBe(200);
    expect(await changed.json()).toMatchObject({
      source: {
        id: 'remote',
        tools: ['remote.wipe'],
        upstream: { approvalRequired: ['wipe'], serviceAccountAllowed: true },
      },
    });
    expect(asks(a)).toBe(true);
    await expect.poll(() => asks(b), { timeout: 15_000 }).toBe(true);
    const listed = await b.request('GET', '/api/registry/sources', { as: 'service' });
    expect(await listed.json()).toMatchObject({
      sources: [{ id: 'remote', upstream: { approvalRequired: ['wipe'] } }],
    });
    // Nothing was asked of the upstream for it: the cached list was mounted again.
    expect(fake.calls).toEqual([]);
  });
});
