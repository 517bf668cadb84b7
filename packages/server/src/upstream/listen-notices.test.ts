/**
 * Issue 31: what clients hear of changes, told apart by caller. A 2026-07-28 `subscriptions/listen`
 * stream hears `tools/list_changed` only when its caller's tools changed; a resource in its filter
 * is subscribed at the upstream and its updates reach it; on PostgreSQL an upstream's notice heard
 * by one instance reaches the clients listening on another.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { createPostgresTestDatabase, postgresTestUrl } from '#test/db/test-database.js';
import { emptyFixtureState } from '#test/mcp/fixture-plugin.js';
import { connectV1, connectV2, startMcpGateway } from '#test/mcp/mcp-test-kit.js';
import { EVERYTHING_BIN } from '#test/upstream/everything.js';
import { startSdkUpstream } from '#test/upstream/sdk-upstream.js';

const UPSTREAM_ENV = {
  GATEWAY_UPSTREAM_ALLOW_PRIVATE: 'true',
  GATEWAY_UPSTREAM_REFRESH_SECONDS: '0',
};

/** A config file starting server-everything over stdio as source `local`. */
async function everythingConfig(): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), 'gateway-listen-'));
  onTestFinished(() => rm(folder, { recursive: true, force: true }));
  const config = join(folder, 'gateway.config.mjs');
  await writeFile(
    config,
    `export default { upstreams: [
      { id: 'local', namespace: 'local', command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(EVERYTHING_BIN)}, 'stdio'] },
    ] };\n`,
  );
  return config;
}

describe('2026-07-28 listen streams (issue 31)', { timeout: 120_000 }, () => {
  it("hear tools/list_changed only when their caller's tools changed", async () => {
    const upstream = await startSdkUpstream();
    const gw = await startMcpGateway({ env: UPSTREAM_ENV });
    const registered = await gw.gateway.request('POST', '/api/registry/sources', {
      as: 'service',
      body: { type: 'mcp', approval: 'listed', id: 'sdk', namespace: 'sdk', url: upstream.url },
    });
    expect(registered.status).toBe(201);
    const alice = await gw.user({ admin: true });
    // `reader` sees `demo.echo.*` only: none of the upstream's tools.
    const bob = await gw.user({ roleId: 'reader' });
    const aliceClient = await connectV2(gw.url, alice.mcpToken);
    const bobClient = await connectV2(gw.url, bob.mcpToken);
    let aliceHeard = 0;
    let bobHeard = 0;
    aliceClient.setNotificationHandler('notifications/tools/list_changed', () => {
      aliceHeard += 1;
    });
    bobClient.setNotificationHandler('notifications/tools/list_changed', () => {
      bobHeard += 1;
    });
    const aliceListen = await aliceClient.listen({ toolsListChanged: true });
    const bobListen = await bobClient.listen({ toolsListChanged: true });
    expect(bobListen.honoredFilter).toEqual({ toolsListChanged: true });

    // The upstream adds a tool: alice, who sees the source, is told; bob, who does not, is not.
    upstream.addTool('second');
    await vi.waitFor(() => expect(aliceHeard).toBe(1), { timeout: 10_000, interval: 50 });
    expect((await aliceClient.listTools()).tools.map((tool) => tool.name)).toContain('sdk.second');
    expect(bobHeard).toBe(0);

    // Bob's role then changes, which may change his tools: he is told of that, and only that.
    const edited = await gw.gateway.request('PUT', '/api/policy/roles/reader', {
      as: alice,
      body: { id: 'reader', name: 'Reader', patterns: ['demo.echo.*', 'sdk.**'] },
    });
    expect(edited.status).toBe(200);
    await vi.waitFor(() => expect(bobHeard).toBe(1), { timeout: 10_000, interval: 50 });
    // A stream still hears later changes of its caller's tools once it heard one.
    upstream.addTool('third');
    await vi.waitFor(() => expect(bobHeard).toBe(2), { timeout: 10_000, interval: 50 });
    expect((await bobClient.listTools()).tools.map((tool) => tool.name)).toContain('sdk.third');
    await aliceListen.close();
    await bobListen.close();
  });

  it('relay the resources they watch to the upstream and hear their updates', async () => {
    const config = await everythingConfig();
    const gw = await startMcpGateway({ configFile: config });
    const alice = await gw.user({ admin: true });
    const subscriber = await connectV2(gw.url, alice.mcpToken);
    expect(subscriber.getServerCapabilities()?.resources).toMatchObject({ subscribe: true });
    const heard: string[] = [];
    subscriber.setNotificationHandler('notifications/resources/updated', (notification) => {
      heard.push(notification.params.uri);
    });
    // `reader` does not see `local`: watching its resource gets nothing, at the upstream or here.
    const bob = await gw.user({ roleId: 'reader' });
    const outsider = await connectV2(gw.url, bob.mcpToken);
    const overheard: string[] = [];
    outsider.setNotificationHandler('notifications/resources/updated', (notification) => {
      overheard.push(notification.params.uri);
    });

    const uri = 'local+demo://resource/dynamic/text/1';
    const watching = await subscriber.listen({ resourceSubscriptions: [uri] });
    expect(watching.honoredFilter).toEqual({ resourceSubscriptions: [uri] });
    const outside = await outsider.listen({ resourceSubscriptions: [uri] });
    expect(outside.honoredFilter).toEqual({});

    // server-everything says each subscribed resource was updated, at once and every 5 s.
    const toggled = await subscriber.callTool({
      name: 'local.toggle_subscriber_updates',
      arguments: {},
    });
    expect(toggled.isError).toBeFalsy();
    await vi.waitFor(() => expect(heard).toContain(uri), { timeout: 15_000, interval: 100 });
    expect(heard.every((one) => one === uri)).toBe(true);
    expect(overheard).toEqual([]);
    await watching.close();
    await subscriber.callTool({ name: 'local.toggle_subscriber_updates', arguments: {} });
  });
});

const pgUrl = postgresTestUrl();

describe.skipIf(!pgUrl)('upstream notices across instances on PostgreSQL (issue 31)', () => {
  it('reach the clients listening on an instance that never spoke to the upstream', async () => {
    const upstream = await startSdkUpstream({ resources: true });
    const scoped = await createPostgresTestDatabase(pgUrl as string);
    onTestFinished(scoped.drop);
    const state = emptyFixtureState();
    const options = {
      databaseUrl: scoped.url,
      state,
      registrySyncSeconds: 0.05,
      env: UPSTREAM_ENV,
    };
    const a = await startMcpGateway(options);
    const b = await startMcpGateway(options);
    const registered = await a.gateway.request('POST', '/api/registry/sources', {
      as: 'service',
      body: { type: 'mcp', approval: 'listed', id: 'sdk', namespace: 'sdk', url: upstream.url },
    });
    expect(registered.status).toBe(201);
    const alice = await a.user({ admin: true });
    // A holds a session with the upstream (a call made there); B mounts the source from the
    // database and never speaks to the upstream.
    const onA = await connectV2(a.url, alice.mcpToken);
    expect((await onA.callTool({ name: 'sdk.first', arguments: {} })).isError).toBeFalsy();
    await expect
      .poll(() => b.gateway.services.upstreams.federated('sdk')?.offers.resources, {
        timeout: 5000,
      })
      .toBeDefined();
    const sessionsBefore = upstream.sessions;

    // A 2025 session and a 2026-07-28 listen stream, both on B only.
    const { client: session, listening } = await connectV1(b.url, alice.mcpToken);
    expect(session.getServerCapabilities()?.resources).toMatchObject({ listChanged: true });
    let sessionHeard = 0;
    session.setNotificationHandler(ResourceListChangedNotificationSchema, () => {
      sessionHeard += 1;
    });
    await session.listTools();
    const listener = await connectV2(b.url, alice.mcpToken);
    let listenerHeard = 0;
    listener.setNotificationHandler('notifications/resources/list_changed', () => {
      listenerHeard += 1;
    });
    await listener.listen({ resourcesListChanged: true });
    // The session hears the notice on its GET stream, opened once initialized: wait for B to hold it.
    await listening;

    upstream.addResource('second');
    await vi.waitFor(() => expect(sessionHeard).toBeGreaterThanOrEqual(1), {
      timeout: 10_000,
      interval: 50,
    });
    await vi.waitFor(() => expect(listenerHeard).toBeGreaterThanOrEqual(1), {
      timeout: 10_000,
      interval: 50,
    });
    // B heard it from A: it opened no session of its own with the upstream.
    expect(upstream.sessions).toBe(sessionsBefore);

    // A role edited on A reaches the 2026-07-28 listen stream on B of a user holding it.
    const bob = await a.user({ roleId: 'reader' });
    const bobOnB = await connectV2(b.url, bob.mcpToken);
    let bobHeard = 0;
    bobOnB.setNotificationHandler('notifications/tools/list_changed', () => {
      bobHeard += 1;
    });
    await bobOnB.listen({ toolsListChanged: true });
    const edited = await a.gateway.request('PUT', '/api/policy/roles/reader', {
      as: alice,
      body: { id: 'reader', name: 'Reader', patterns: ['demo.echo.*', 'sdk.**'] },
    });
    expect(edited.status).toBe(200);
    await vi.waitFor(() => expect(bobHeard).toBe(1), { timeout: 10_000, interval: 50 });
  });

  it('reach a 2025 session whose GET stream another instance holds than the one it subscribed on', async () => {
    const scoped = await createPostgresTestDatabase(pgUrl as string);
    onTestFinished(scoped.drop);
    const config = await everythingConfig();
    const options = { databaseUrl: scoped.url, state: emptyFixtureState(), configFile: config };
    const a = await startMcpGateway(options);
    const b = await startMcpGateway(options);
    const alice = await a.user({ admin: true });
    // Requests go to A, the session's GET stream to B, as a balancer without affinity may do.
    let streamHeld: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      streamHeld = resolve;
    });
    const split: typeof fetch = async (input, init) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      const get = (init?.method ?? 'GET') === 'GET';
      url.host = new URL(get ? b.url : a.url).host;
      const response = await fetch(url, init);
      // B answers the GET once it holds the session's stream: a notice for it reaches it from then.
      if (get && response.ok) streamHeld();
      return response;
    };
    const client = new V1Client({ name: 'split', version: '1.0.0' });
    await client.connect(
      new V1Transport(new URL(`${a.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${alice.mcpToken}` } },
        fetch: split,
      }),
    );
    onTestFinished(() => client.close());
    const heard: string[] = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
      heard.push(notification.params.uri);
    });
    const uri = 'local+demo://resource/dynamic/text/1';
    // Subscribed through A, at A's server-everything process, which sends the updates.
    await client.subscribeResource({ uri });
    // The first update comes as soon as updates are turned on, the next 5 s later: turned on
    // before B holds the stream, the test waited for the second.
    await held;
    const toggled = await client.callTool({
      name: 'local.toggle_subscriber_updates',
      arguments: {},
    });
    expect(toggled.isError).toBeFalsy();
    // The first update reaches the stream B holds.
    await vi.waitFor(() => expect(heard).toContain(uri), { timeout: 15_000, interval: 100 });
    await client.callTool({ name: 'local.toggle_subscriber_updates', arguments: {} });
  });
});
