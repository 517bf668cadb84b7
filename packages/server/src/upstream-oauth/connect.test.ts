/**
 * Issue 16: upstream MCP sources with `auth: { kind: "oauth" }`. A real authorization server
 * (oidc-provider: dynamic client registration, PKCE, resource indicators) protects an MCP SDK
 * server behind the SDK's bearer-auth gate; users connect through the gateway over real HTTP,
 * and each call carries the calling user's own token only.
 */
import { describe, expect, it } from 'vitest';
import { loginAtProvider } from '#test/auth/oidc-provider-server.js';
import { connectV1 } from '#test/mcp/mcp-test-kit.js';
import { rememberSecret } from '#test/support/known-secrets.js';
import { startOAuthUpstreamWorld } from '#test/upstream-oauth/oauth-world.js';

const text = (result: unknown) =>
  ((result as { content: { type: string; text: string }[] }).content[0]?.text ?? '') as string;

describe('registering an oauth upstream', () => {
  it('stores it without a user token, discovers its authorization server, and shows no secret', async () => {
    const world = await startOAuthUpstreamWorld();
    const answer = await world.register({
      kind: 'oauth',
      clientId: 'pre-registered',
      clientSecret: 'pre-registered-secret-0123456789',
    });
    rememberSecret('pre-registered-secret-0123456789');
    expect(answer.status).toBe(201);
    expect(((await answer.json()) as { tools: string[] }).tools).toEqual([]);
    const listed = await world.mcp.gateway.request('GET', '/api/registry/sources', {
      as: 'service',
    });
    const body = await listed.text();
    expect(body).not.toContain('pre-registered-secret');
    const source = (
      JSON.parse(body) as {
        sources: { id: string; upstream?: { auth: unknown; toolsFetchedAt: unknown } }[];
      }
    ).sources.find((one) => one.id === 'secure');
    expect(source?.upstream?.auth).toEqual({ kind: 'oauth', clientId: 'pre-registered' });
    expect(source?.upstream?.toolsFetchedAt).toBeNull();
    const stored = await world.mcp.gateway.services.database.db
      .selectFrom('upstream_oauth_clients')
      .selectAll()
      .executeTakeFirstOrThrow();
    expect(stored.encrypted_client_secret).not.toContain('pre-registered-secret');
    expect(world.mcp.gateway.services.secrets.decrypt(stored.encrypted_client_secret ?? '')).toBe(
      'pre-registered-secret-0123456789',
    );
    // The admin Sources page says how users connect, and that the list is still to come.
    const admin = await world.signUp('admin');
    const page = await (await admin.session.browse('/admin/sources')).text();
    expect(page).toContain('each user connects their own account');
    expect(page).toContain('Tool list: when the first user connects');
    expect(page).not.toContain('pre-registered-secret');
  });

  it('refuses a clientSecret without clientId (400)', async () => {
    const world = await startOAuthUpstreamWorld();
    const answer = await world.register({ kind: 'oauth', clientSecret: 'lonely-secret-012345' });
    rememberSecret('lonely-secret-012345');
    expect(answer.status).toBe(400);
    const body = await answer.text();
    expect(body).toContain('clientSecret needs clientId');
    expect(body).not.toContain('lonely-secret');
  });
});

describe('connecting users and calling', () => {
  it("connects each user through the authorization server and sends only the caller's token", async () => {
    const world = await startOAuthUpstreamWorld();
    expect((await world.register()).status).toBe(201);
    const alice = await world.signUp('alice');
    const bob = await world.signUp('bob');

    const connected = await world.connect(alice, 'alice-sub');
    expect(connected.answer.status).toBe(303);
    expect(connected.answer.headers.get('location')).toBe('/tools?connected=mcp.secure');
    // RFC 9207: the authorization server says who answered.
    expect(connected.callback.searchParams.get('iss')).toBe(world.as.issuer);
    expect(world.as.registrations()).toBe(1);

    const onAlice = await connectV1(world.mcp.url, alice.mcpToken);
    const onBob = await connectV1(world.mcp.url, bob.mcpToken);
    // The first connect fetched the list with Alice's token; every user sees it.
    await expect
      .poll(async () => (await onBob.client.listTools()).tools.map((tool) => tool.name))
      .toEqual(['secure.whoami']);

    const bobWithout = await onBob.client.callTool({ name: 'secure.whoami', arguments: {} });
    expect(bobWithout.isError).toBe(true);
    expect(text(bobWithout)).toBe(
      `No connection of yours to the upstream MCP server of source "secure". Connect it in the Tools tab of ${world.mcp.url} or run \`gateway connect secure\`.`,
    );
    const before = world.upstream.seen.length;
    expect(world.upstream.seen.slice(before)).toEqual([]);

    const asAlice = await onAlice.client.callTool({ name: 'secure.whoami', arguments: {} });
    expect(asAlice.isError).toBeFalsy();
    expect(text(asAlice)).toBe('you are alice-sub');

    await world.connect(bob, 'bob-sub');
    expect(world.as.registrations()).toBe(1);
    const asBob = await onBob.client.callTool({ name: 'secure.whoami', arguments: {} });
    expect(text(asBob)).toBe('you are bob-sub');
    expect(text(await onAlice.client.callTool({ name: 'secure.whoami', arguments: {} }))).toBe(
      'you are alice-sub',
    );

    // Every request the upstream saw carried exactly one subject's token, never the other's.
    const tokensOf = (sub: string) =>
      new Set(world.upstream.seen.filter((seen) => seen.sub === sub).map((s) => s.authorization));
    const aliceTokens = tokensOf('alice-sub');
    const bobTokens = tokensOf('bob-sub');
    expect(aliceTokens.size).toBeGreaterThan(0);
    expect(bobTokens.size).toBeGreaterThan(0);
    for (const token of aliceTokens) {
      rememberSecret(String(token).replace(/^Bearer /, ''));
      expect(bobTokens.has(token)).toBe(false);
    }
    for (const token of bobTokens) rememberSecret(String(token).replace(/^Bearer /, ''));
    // RFC 8707: the resource is named on the authorization and the token requests alike.
    expect(world.as.resources.length).toBeGreaterThanOrEqual(4);
    expect(new Set(world.as.resources)).toEqual(new Set([world.upstream.url]));

    // The tokens are Alice's connection, encrypted, listed masked.
    const list = await world.mcp.gateway.request('GET', `/api/connections?userId=${alice.id}`, {
      as: 'service',
    });
    const connections = (await list.json()) as {
      connections: { tool_id: string; masked_secret: string }[];
    };
    expect(connections.connections.map((row) => row.tool_id)).toEqual(['mcp.secure']);
    expect(connections.connections[0]?.masked_secret).toMatch(/^•+.{4}$/);

    // Removing the source removes every user's tokens for it, and its client registration.
    const removed = await world.mcp.gateway.request('DELETE', '/api/registry/sources/secure', {
      as: 'service',
    });
    expect(removed.status).toBe(200);
    const { db } = world.mcp.gateway.services.database;
    expect(
      await db.selectFrom('connections').select('id').where('tool_id', '=', 'mcp.secure').execute(),
    ).toEqual([]);
    expect(await db.selectFrom('upstream_oauth_clients').select('source_id').execute()).toEqual([]);
  });

  it('uses a client registered beforehand instead of registering one', async () => {
    const world = await startOAuthUpstreamWorld();
    // An admin registers the gateway at the authorization server by hand.
    const made = await fetch(`${world.as.issuer}/reg`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        redirect_uris: [`${world.mcp.url}/oauth/upstream/callback`],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      }),
    });
    expect(made.status).toBe(201);
    const client = (await made.json()) as { client_id: string; client_secret: string };
    expect(
      (
        await world.register({
          kind: 'oauth',
          clientId: client.client_id,
          clientSecret: client.client_secret,
          scopes: ['tools'],
        })
      ).status,
    ).toBe(201);
    const alice = await world.signUp('alice');
    const { callback, answer } = await world.connect(alice, 'alice-sub');
    expect(answer.status).toBe(303);
    expect(world.as.registrations()).toBe(1);
    expect(world.as.grants('authorization_code')).toBe(1);
    expect(callback.searchParams.get('code')).not.toBeNull();
    const { client: mcp } = await connectV1(world.mcp.url, alice.mcpToken);
    expect(text(await mcp.callTool({ name: 'secure.whoami', arguments: {} }))).toBe(
      'you are alice-sub',
    );
  });

  it('refuses a replayed callback and one another user brings back, storing nothing', async () => {
    const world = await startOAuthUpstreamWorld();
    expect((await world.register()).status).toBe(201);
    const alice = await world.signUp('alice');
    const mallory = await world.signUp('mallory');
    const { callback } = await world.connect(alice, 'alice-sub');
    const replay = await alice.session.browse(callback.toString());
    expect(replay.status).toBe(400);
    expect(await replay.text()).toContain('was already used');

    // Mallory's authorization answer, delivered to Alice's browser (login CSRF): refused.
    const started = await mallory.session.browse('/tools/oauth/mcp.secure/connect', {
      form: { go: '1' },
    });
    const malloryCallback = await loginAtProvider(
      started.headers.get('location') ?? '',
      'mallory-sub',
    );
    const crossed = await alice.session.browse(malloryCallback.toString());
    expect(crossed.status).toBe(400);
    expect(await crossed.text()).toContain('started by another Gateway user');
    const rows = await world.mcp.gateway.services.database.db
      .selectFrom('connections')
      .select(['user_id'])
      .where('tool_id', '=', 'mcp.secure')
      .execute();
    expect(rows.map((row) => row.user_id)).toEqual([alice.id]);

    const forged = await alice.session.browse(
      '/oauth/upstream/callback?state=forged-state-1234&code=x',
    );
    expect(forged.status).toBe(400);

    // Not signed in: refused with 401, and the answer is not spent, so signed in it completes.
    const again = await alice.session.browse('/tools/oauth/mcp.secure/connect', {
      form: { go: '1' },
    });
    const pending = await loginAtProvider(again.headers.get('location') ?? '', 'alice-sub');
    const anonymous = await fetch(pending, { redirect: 'manual' });
    expect(anonymous.status).toBe(401);
    expect(await anonymous.text()).toContain('not signed in to Gateway');
    const completed = await alice.session.browse(pending.toString());
    expect(completed.status).toBe(303);
  });
});
