/**
 * Issue 16, oauth upstreams under attack, black-box over real HTTP: metadata that points the
 * gateway at a private address or at another resource, an authorization server that names
 * another issuer, a token endpoint answering garbage, an `iss` of another server on the
 * callback. Each ends in a clear 4xx (or a clear error page), stores nothing and logs no token
 * (the leak check of every test file greps the logs for every token the servers issued).
 */
import { describe, expect, it } from 'vitest';
import { loginAtProvider } from '#test/auth/oidc-provider-server.js';
import { connectV1 } from '#test/mcp/mcp-test-kit.js';
import { startOAuthUpstreamWorld } from '#test/upstream-oauth/oauth-world.js';

const text = (result: unknown) =>
  (result as { content: { text: string }[] }).content[0]?.text ?? '';

async function storedNothing(world: Awaited<ReturnType<typeof startOAuthUpstreamWorld>>) {
  const { db } = world.mcp.gateway.services.database;
  const sources = await db
    .selectFrom('registry_sources')
    .select('id')
    .where('type', '=', 'mcp')
    .execute();
  const clients = await db.selectFrom('upstream_oauth_clients').select('source_id').execute();
  return { sources: sources.length, clients: clients.length };
}

describe('registration refuses metadata that breaks the rules', () => {
  it('an authorization server on a link-local address (cloud metadata): 400, nothing stored', async () => {
    const world = await startOAuthUpstreamWorld();
    world.upstream.metadataOverride = {
      resource: world.upstream.url,
      authorization_servers: ['http://169.254.169.254/latest'],
    };
    const answer = await world.register();
    expect(answer.status).toBe(400);
    const body = (await answer.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('bad_request');
    expect(body.error.message).toContain('link-local');
    expect(await storedNothing(world)).toEqual({ sources: 0, clients: 0 });
  });

  it('a 401 naming resource metadata on a link-local address, or the gateway as the authorization server: 400', async () => {
    const world = await startOAuthUpstreamWorld();
    world.upstream.challengeOverride = 'http://169.254.169.254/latest/meta-data/';
    const metadata = await world.register();
    expect(metadata.status).toBe(400);
    expect(((await metadata.json()) as { error: { message: string } }).error.message).toContain(
      'the protected resource metadata URL points to a link-local',
    );
    world.upstream.challengeOverride = undefined;
    world.upstream.metadataOverride = {
      resource: world.upstream.url,
      authorization_servers: [world.mcp.url],
    };
    const self = await world.register();
    expect(self.status).toBe(400);
    expect(((await self.json()) as { error: { message: string } }).error.message).toContain(
      'the gateway itself',
    );
    expect(await storedNothing(world)).toEqual({ sources: 0, clients: 0 });
  });

  it("protected resource metadata describing another origin's resource: 400", async () => {
    const world = await startOAuthUpstreamWorld();
    world.upstream.metadataOverride = {
      resource: 'https://victim.example/mcp',
      authorization_servers: [world.as.issuer],
    };
    const answer = await world.register();
    expect(answer.status).toBe(400);
    expect(((await answer.json()) as { error: { message: string } }).error.message).toContain(
      'describes another resource',
    );
    expect(await storedNothing(world)).toEqual({ sources: 0, clients: 0 });
  });

  it('authorization server metadata naming another issuer: 400 (RFC 8414 3.3)', async () => {
    const world = await startOAuthUpstreamWorld();
    world.as.issuerOverride = 'https://evil.example';
    const answer = await world.register();
    expect(answer.status).toBe(400);
    expect(((await answer.json()) as { error: { message: string } }).error.message).toContain(
      'names another issuer',
    );
    expect(await storedNothing(world)).toEqual({ sources: 0, clients: 0 });
  });

  it('an upstream that cannot be reached: 503 saying so, nothing stored', async () => {
    const world = await startOAuthUpstreamWorld();
    const answer = await fetch(`${world.mcp.url}/api/registry/sources`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${(await import('#test/support/test-gateway.js')).TEST_SERVICE_SECRET}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({
        type: 'mcp',
        id: 'gone',
        namespace: 'gone',
        url: 'http://127.0.0.1:1/mcp',
        auth: { kind: 'oauth' },
      }),
    });
    expect(answer.status).toBe(503);
    expect(await storedNothing(world)).toEqual({ sources: 0, clients: 0 });
  });
});

describe('connecting refuses what changed or was forged since', () => {
  it('an issuer that changed after registration: the Tools tab says why, no flow starts', async () => {
    const world = await startOAuthUpstreamWorld();
    expect((await world.register()).status).toBe(201);
    const alice = await world.signUp('alice');
    world.as.issuerOverride = 'https://evil.example';
    const started = await alice.session.browse('/tools/oauth/mcp.secure/connect', {
      form: { go: '1' },
    });
    expect(started.status).toBe(303);
    expect(started.headers.get('location')).toBe('/tools');
    const tools = await alice.session.browse('/tools');
    expect(tools.status).toBe(200);
    expect(await tools.text()).toContain('names another issuer');
    const flows = await world.mcp.gateway.services.database.db
      .selectFrom('upstream_oauth_flows')
      .select('state_hash')
      .execute();
    expect(flows).toEqual([]);
  });

  it('an iss of another server on the callback (RFC 9207 mix-up): error page, nothing stored', async () => {
    const world = await startOAuthUpstreamWorld();
    expect((await world.register()).status).toBe(201);
    const alice = await world.signUp('alice');
    const started = await alice.session.browse('/tools/oauth/mcp.secure/connect', {
      form: { go: '1' },
    });
    const callback = await loginAtProvider(started.headers.get('location') ?? '', 'alice-sub');
    callback.searchParams.set('iss', 'https://evil.example');
    const answer = await alice.session.browse(callback.toString());
    expect(answer.status).toBe(400);
    expect(await answer.text()).toContain('another authorization server');
    expect(world.as.grants('authorization_code')).toBe(0);
    const rows = await world.mcp.gateway.services.database.db
      .selectFrom('connections')
      .select('id')
      .execute();
    expect(rows).toEqual([]);
  });

  it('a token endpoint answering garbage: error page, nothing stored, no 5xx', async () => {
    const world = await startOAuthUpstreamWorld();
    expect((await world.register()).status).toBe(201);
    const alice = await world.signUp('alice');
    world.as.tokenGarbage = '{"access_token": 42, "token_type": ["no"]}';
    const { answer } = await world.connect(alice, 'alice-sub');
    expect(answer.status).toBe(400);
    expect(await answer.text()).toContain('did not answer with a usable token');
    world.as.tokenGarbage = '<html>not json</html>';
    const again = await world.connect(alice, 'alice-sub');
    expect(again.answer.status).toBe(400);
    const rows = await world.mcp.gateway.services.database.db
      .selectFrom('connections')
      .select('id')
      .execute();
    expect(rows).toEqual([]);
  });
});

describe('a token the upstream refuses', () => {
  it('ends the call asking to reconnect, marks the connection, and a reconnect clears it', async () => {
    const world = await startOAuthUpstreamWorld();
    expect((await world.register()).status).toBe(201);
    const alice = await world.signUp('alice');
    await world.connect(alice, 'alice-sub');
    const { client } = await connectV1(world.mcp.url, alice.mcpToken);
    expect(text(await client.callTool({ name: 'secure.whoami', arguments: {} }))).toBe(
      'you are alice-sub',
    );

    world.upstream.refusedSubjects.add('alice-sub');
    const refused = await client.callTool({ name: 'secure.whoami', arguments: {} });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toContain('refused the credential (HTTP 401). Reconnect secure');
    const seen = world.upstream.seen.length;
    const after = await client.callTool({ name: 'secure.whoami', arguments: {} });
    expect(after.isError).toBe(true);
    expect(text(after)).toContain('Reconnect it in the Tools tab');
    expect(world.upstream.seen.length).toBe(seen);
    const status = await world.mcp.gateway.request('GET', `/api/tools/status?userId=${alice.id}`, {
      as: 'service',
    });
    const plugins = (
      (await status.json()) as {
        plugins: { id: string; providers: { state: string }[] }[];
      }
    ).plugins;
    expect(plugins.find((plugin) => plugin.id === 'secure')?.providers[0]?.state).toBe('reconnect');

    // The records of these calls say what happened, and hold no token.
    const records = await world.mcp.gateway.request('GET', `/api/executions?userId=${alice.id}`, {
      as: 'service',
    });
    const recorded = await records.text();
    expect(recorded).toContain('Upstream answered HTTP 401');
    expect(recorded).not.toMatch(/eyJ[\w-]+\./);
    for (const seen of world.upstream.seen) {
      if (seen.authorization !== undefined) {
        expect(recorded).not.toContain(seen.authorization.replace(/^Bearer /, ''));
      }
    }

    world.upstream.refusedSubjects.clear();
    await world.connect(alice, 'alice-sub');
    expect(text(await client.callTool({ name: 'secure.whoami', arguments: {} }))).toBe(
      'you are alice-sub',
    );
  });

  it('refreshes an expiring token once for concurrent calls (single-flight)', async () => {
    const world = await startOAuthUpstreamWorld();
    expect((await world.register()).status).toBe(201);
    const alice = await world.signUp('alice');
    // Shorter than the 30 s margin: due for a refresh as soon as it is stored.
    world.as.accessTokenTtl = 20;
    await world.connect(alice, 'alice-sub');
    world.as.accessTokenTtl = 3600;
    const { client } = await connectV1(world.mcp.url, alice.mcpToken);
    const results = await Promise.all(
      Array.from({ length: 5 }, () => client.callTool({ name: 'secure.whoami', arguments: {} })),
    );
    expect(results.map(text)).toEqual(Array(5).fill('you are alice-sub'));
    expect(world.as.grants('refresh_token')).toBe(1);
    // RFC 8707 on the refresh too.
    expect(world.as.resources.at(-1)).toBe(world.upstream.url);
  });
});
