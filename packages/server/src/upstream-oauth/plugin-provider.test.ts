/**
 * Issue 34: a plugin declares its own OAuth 2 provider. The operator supplies the client
 * (`NOTION_CLIENT_ID`/`_SECRET`), users connect it from the Tools tab (or `gateway connect
 * notion`) through the gateway's upstream OAuth callback, and tools call their API with
 * `ctx.auth.fetch`. Against panva's `oidc-provider` (issuer discovery) and `oauth2-mock-server`
 * (explicit endpoints), over real HTTP.
 */
import { definePlugin } from '@gateway/sdk';
import { describe, expect, it } from 'vitest';
import { startMockProvider } from '#test/auth/oauth-test-kit.js';
import { loginAtProvider, startOidcProvider } from '#test/auth/oidc-provider-server.js';
import { connectV1 } from '#test/mcp/mcp-test-kit.js';
import {
  connectAtOidc,
  connection,
  expire,
  freePort,
  greedyPlugin,
  notesPlugin,
  revoke,
  startConnect,
  startFakeApi,
  startPluginGateway,
} from '#test/plugin-oauth/plugin-oauth-world.js';
import { rememberSecret } from '#test/support/known-secrets.js';

const text = (result: unknown) =>
  ((result as { content: { type: string; text: string }[] }).content[0]?.text ?? '') as string;

async function oidcWorld(options: { accessTokenTtl?: number } = {}) {
  const port = await freePort();
  const idp = await startOidcProvider({
    redirectUri: `http://127.0.0.1:${port}/oauth/upstream/callback`,
    ...options,
  });
  rememberSecret(idp.clientSecret);
  const api = await startFakeApi(async (authorization) => {
    const me = await fetch(`${idp.issuer}/me`, { headers: { authorization } });
    if (me.status !== 200) return undefined;
    return ((await me.json()) as { sub: string }).sub;
  });
  const notes = notesPlugin(api.url, {
    issuer: idp.issuer,
    scopes: ['openid', 'offline_access'],
    // oidc-provider issues a refresh token only when consent was asked for.
    authorizationParams: { prompt: 'consent' },
  });
  const world = await startPluginGateway({
    port,
    plugins: [notes, greedyPlugin()],
    env: { NOTION_CLIENT_ID: idp.clientId, NOTION_CLIENT_SECRET: idp.clientSecret },
  });
  return { idp, api, ...world };
}

describe('a plugin-defined OAuth provider against oidc-provider', () => {
  it('is connected from the Tools tab, stored encrypted, and called with the user’s own token', async () => {
    const { gw, url, api, signUp } = await oidcWorld();
    const alice = await signUp('alice');
    const bob = await signUp('bob');

    const before = await (await alice.session.browse('/tools')).text();
    expect(before).toContain('action="/tools/oauth/%40notion/connect"');

    const authorize = await startConnect(alice);
    // The gateway's own callback, PKCE S256, state, the plugin's scopes and extra parameter.
    expect(authorize.searchParams.get('redirect_uri')).toBe(`${url}/oauth/upstream/callback`);
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorize.searchParams.get('state')?.length).toBeGreaterThan(20);
    expect(authorize.searchParams.get('scope')).toBe('openid offline_access');
    expect(authorize.searchParams.get('prompt')).toBe('consent');
    expect(authorize.searchParams.get('resource')).toBeNull();

    const callback = await loginAtProvider(authorize.toString(), 'alice-sub');
    const answer = await alice.session.browse(callback.toString());
    expect(answer.status).toBe(303);
    expect(answer.headers.get('location')).toBe('/tools?connected=notion');
    const page = await (await alice.session.browse('/tools?connected=notion')).text();
    expect(page).toContain('notion connected.');

    const stored = await connection(gw, alice.id);
    const envelope = JSON.parse(gw.services.secrets.decrypt(stored.encrypted_secret)) as {
      accessToken: string;
      refreshToken: string;
    };
    rememberSecret(envelope.accessToken);
    rememberSecret(envelope.refreshToken);
    expect(envelope.refreshToken).toBeTruthy();
    expect(stored.encrypted_secret).not.toContain(envelope.accessToken);
    expect(stored.masked_secret).not.toContain(envelope.accessToken);

    const onAlice = await connectV1(url, alice.mcpToken);
    const asAlice = await onAlice.client.callTool({ name: 'notes.me.get', arguments: {} });
    expect(asAlice.isError).toBeFalsy();
    expect(asAlice.structuredContent ?? JSON.parse(text(asAlice))).toEqual({ sub: 'alice-sub' });
    expect(api.seen.at(-1)).toBe(`Bearer ${envelope.accessToken}`);

    // Bob has not connected: told how, nothing sent upstream.
    const sent = api.seen.length;
    const onBob = await connectV1(url, bob.mcpToken);
    const asBob = await onBob.client.callTool({ name: 'notes.me.get', arguments: {} });
    expect(asBob.isError).toBe(true);
    expect(text(asBob)).toBe(
      `No credential for "notion". Connect it in the Tools tab of ${url} or run \`gateway connect notion\`.`,
    );
    expect(api.seen.length).toBe(sent);

    // The connectors list names it for `gateway connect notion`.
    const connectors = (await (
      await alice.session.browse('/api/connectors/availability')
    ).json()) as { connectors: { id: string; kind: string; configured: boolean }[] };
    expect(connectors.connectors.find((one) => one.id === 'notion')).toMatchObject({
      kind: 'plugin_oauth',
      configured: true,
    });
  });

  it('refreshes once for 50 concurrent calls after expiry, on one refresh token', async () => {
    const { gw, url, idp, signUp } = await oidcWorld();
    const alice = await signUp('alice');
    await connectAtOidc(alice, 'alice-sub');
    const old = await expire(gw, alice.id);
    const onAlice = await connectV1(url, alice.mcpToken);
    const results = await Promise.all(
      Array.from({ length: 50 }, () =>
        onAlice.client.callTool({ name: 'notes.me.get', arguments: {} }),
      ),
    );
    for (const result of results) expect(result.isError).toBeFalsy();
    expect(idp.grants('refresh_token')).toBe(1);
    const fresh = JSON.parse(
      gw.services.secrets.decrypt((await connection(gw, alice.id)).encrypted_secret),
    ) as { accessToken: string; refreshToken: string; expiresAt: number };
    rememberSecret(fresh.accessToken);
    rememberSecret(fresh.refreshToken);
    expect(fresh.accessToken).not.toBe(old.accessToken);
    expect(fresh.expiresAt).toBeGreaterThan(Date.now() + 60_000);
  });

  it('shows Reconnect once the grant is revoked (refresh refused) and the call says so', async () => {
    const { gw, url, idp, signUp } = await oidcWorld();
    const alice = await signUp('alice');
    await connectAtOidc(alice, 'alice-sub');
    const envelope = await expire(gw, alice.id);
    await revoke(idp, envelope.refreshToken);
    const onAlice = await connectV1(url, alice.mcpToken);
    const result = await onAlice.client.callTool({ name: 'notes.me.get', arguments: {} });
    expect(result.isError).toBe(true);
    expect(text(result)).toBe(
      `Your "notion" connection was refused by its provider (revoked or expired). Reconnect it in the Tools tab of ${url} or run \`gateway connect notion\`.`,
    );
    const page = await (await alice.session.browse('/tools')).text();
    expect(page).toContain('data-reconnect="@notion"');
    expect(page).toContain('Reconnect Notes');
    // Connecting again clears it.
    await connectAtOidc(alice, 'alice-sub');
    const again = await onAlice.client.callTool({ name: 'notes.me.get', arguments: {} });
    expect(again.isError).toBeFalsy();
    expect(await (await alice.session.browse('/tools')).text()).not.toContain('data-reconnect');
  });

  it('shows Reconnect when the API answers 401 to a revoked access token (ctx.auth.fetch)', async () => {
    const { gw, url, idp, signUp } = await oidcWorld();
    const alice = await signUp('alice');
    await connectAtOidc(alice, 'alice-sub');
    const row = await connection(gw, alice.id);
    const { accessToken } = JSON.parse(gw.services.secrets.decrypt(row.encrypted_secret)) as {
      accessToken: string;
    };
    await revoke(idp, accessToken);
    const onAlice = await connectV1(url, alice.mcpToken);
    const result = await onAlice.client.callTool({ name: 'notes.me.get', arguments: {} });
    expect(result.isError).toBe(true);
    expect(text(result)).toBe(
      `The "notion" API refused your connection (401: revoked or expired). Reconnect it in the Tools tab of ${url} or run \`gateway connect notion\`.`,
    );
    expect(await (await alice.session.browse('/tools')).text()).toContain(
      'data-reconnect="@notion"',
    );
  });
});

describe('attacks on a plugin-defined OAuth provider', () => {
  it('refuses a replayed state, another user’s callback and a forged state, storing nothing', async () => {
    const { gw, signUp } = await oidcWorld();
    const alice = await signUp('alice');
    const mallory = await signUp('mallory');
    const authorize = await startConnect(alice);
    const callback = await loginAtProvider(authorize.toString(), 'alice-sub');

    // Mallory's browser gets Alice's answer: refused, and the state is spent.
    const stolen = await mallory.session.browse(callback.toString());
    expect(stolen.status).toBe(400);
    expect(await stolen.text()).toContain('started by another Gateway user');
    const replay = await alice.session.browse(callback.toString());
    expect(replay.status).toBe(400);
    expect(await replay.text()).toContain('already used');

    const forged = new URL(callback);
    forged.searchParams.set('state', 'forged-state-0123456789');
    expect((await alice.session.browse(forged.toString())).status).toBe(400);
    const rows = await gw.services.database.db
      .selectFrom('connections')
      .select('id')
      .where('tool_id', '=', 'notion')
      .execute();
    expect(rows).toEqual([]);
  });

  it('refuses an iss of another server on the callback (RFC 9207 mix-up), storing nothing', async () => {
    const { gw, idp, signUp } = await oidcWorld();
    const alice = await signUp('alice');
    const callback = await loginAtProvider((await startConnect(alice)).toString(), 'alice-sub');
    // oidc-provider names itself in `iss`; the gateway checks it is the plugin's issuer.
    expect(callback.searchParams.get('iss')).toBe(idp.issuer);
    callback.searchParams.set('iss', 'https://evil.example');
    const answer = await alice.session.browse(callback.toString());
    expect(answer.status).toBe(400);
    expect(await answer.text()).toContain('another authorization server');
    expect(idp.grants('authorization_code')).toBe(0);
    const rows = await gw.services.database.db
      .selectFrom('connections')
      .select('id')
      .where('tool_id', '=', 'notion')
      .execute();
    expect(rows).toEqual([]);
  });

  it('refuses a CLI connect whose redirect target is not a loopback address', async () => {
    const { signUp } = await oidcWorld();
    const alice = await signUp('alice');
    const page = await alice.session.browse(
      `/cli/connect-upstream/%40notion?${new URLSearchParams({ redirect_uri: 'https://evil.example/cb', state: 'state-0123456789abcdef' })}`,
    );
    expect(page.status).toBe(400);
    const ok = await alice.session.browse(
      `/cli/connect-upstream/%40notion?${new URLSearchParams({ redirect_uri: 'http://127.0.0.1:53682/callback', state: 'state-0123456789abcdef' })}`,
    );
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain('the OAuth provider notion');
  });

  it('never vends the token to a plugin that did not declare the provider', async () => {
    const { url, api, signUp } = await oidcWorld();
    const alice = await signUp('alice');
    await connectAtOidc(alice, 'alice-sub');
    const onAlice = await connectV1(url, alice.mcpToken);
    const sent = api.seen.length;
    const result = await onAlice.client.callTool({ name: 'greedy.steal.run', arguments: {} });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('"notion"');
    expect(text(result)).toContain('greedy');
    expect(api.seen.length).toBe(sent);
  });

  it('cannot be connected until the operator sets its client, and says which settings', async () => {
    const port = await freePort();
    const plugin = notesPlugin('http://127.0.0.1:9/', {
      authorizationUrl: 'http://127.0.0.1:9/authorize',
      tokenUrl: 'http://127.0.0.1:9/token',
    });
    const { signUp } = await startPluginGateway({ port, plugins: [plugin], env: {} });
    const alice = await signUp('alice');
    const page = await (await alice.session.browse('/tools')).text();
    expect(page).toContain('sign-in is not set up on this server');
    const started = await alice.session.browse('/tools/oauth/%40notion/connect', {
      form: { go: '1' },
    });
    expect(started.status).toBe(303);
    const flash = await (
      await alice.session.browse(started.headers.get('location') ?? '/tools')
    ).text();
    expect(flash).toContain('NOTION_CLIENT_ID and NOTION_CLIENT_SECRET');
  });

  it('refuses an unknown sign-in provider name and a client secret in plugin code, by name', () => {
    expect(() =>
      definePlugin({
        id: 'wiki',
        name: 'Wiki',
        description: 'A wiki.',
        authProviders: [{ id: 'wiki', type: 'oauth2', provider: 'notion', scopes: [] }],
        tools: [],
      }),
    ).toThrow(
      /"notion" is not a sign-in provider of the gateway .*declare the plugin's own OAuth provider instead/,
    );
    expect(() =>
      definePlugin({
        id: 'wiki',
        name: 'Wiki',
        description: 'A wiki.',
        authProviders: [
          {
            id: 'wiki',
            type: 'oauth2',
            oauth: {
              authorizationUrl: 'http://10.0.0.1/authorize',
              tokenUrl: 'https://wiki.example/token',
              clientSecret: 'oops',
            } as never,
          },
        ],
        tools: [],
      }),
    ).toThrow(
      /authorizationUrl: must be an https URL[\s\S]*clientSecret: never belongs in plugin code/,
    );
  });
});

describe('a plugin-defined OAuth provider against oauth2-mock-server (explicit endpoints)', () => {
  it('connects, calls, and maps the API’s 401/403/404/429/503 without showing the token', async () => {
    const idp = await startMockProvider({ claims: { sub: 'mock-sub' } });
    const port = await freePort();
    const api = await startFakeApi(async (authorization) =>
      authorization.startsWith('Bearer ') ? 'mock-user' : undefined,
    );
    const plugin = notesPlugin(api.url, {
      authorizationUrl: `${idp.url}/authorize`,
      tokenUrl: `${idp.url}/token`,
      scopes: ['notes.read'],
    });
    const { gw, url, signUp } = await startPluginGateway({
      port,
      plugins: [plugin],
      env: {
        NOTION_CLIENT_ID: 'mock-client',
        NOTION_CLIENT_SECRET: 'mock-client-secret-0123456789',
      },
    });
    rememberSecret('mock-client-secret-0123456789');
    const alice = await signUp('alice');
    const authorize = await startConnect(alice);
    expect(authorize.origin).toBe(idp.url);
    // The mock server answers the authorization at once with a redirect to the callback.
    const toCallback = await fetch(authorize, { redirect: 'manual' });
    const callback = new URL(toCallback.headers.get('location') ?? '');
    expect(callback.pathname).toBe('/oauth/upstream/callback');
    const answer = await alice.session.browse(callback.toString());
    expect(answer.headers.get('location')).toBe('/tools?connected=notion');
    for (const token of idp.issuedAccessTokens) rememberSecret(token);
    for (const token of idp.issuedRefreshTokens) rememberSecret(token);
    const [token] = idp.issuedAccessTokens;

    const onAlice = await connectV1(url, alice.mcpToken);
    const ok = await onAlice.client.callTool({ name: 'notes.me.get', arguments: {} });
    expect(ok.isError).toBeFalsy();
    expect(api.seen.at(-1)).toBe(`Bearer ${token}`);

    const statusText = async (status: number) =>
      text(await onAlice.client.callTool({ name: 'notes.status.get', arguments: { status } }));
    expect(await statusText(403)).toBe(
      `${api.url}/status/403 answered 403 Forbidden: your "notion" credential lacks access to it (its scopes or permissions). Ask for access, or reconnect "notion" with more scopes.`,
    );
    expect(await statusText(404)).toContain('answered 404 Not Found');
    expect(await statusText(429)).toBe(
      `${api.url}/status/429 answered 429 Too Many Requests; try again in 7 s.`,
    );
    expect(await statusText(503)).toContain('503 Service Unavailable; try again in 7 s');
    expect(await statusText(418)).toContain('"status":418');
    expect(await statusText(401)).toContain('Reconnect it in the Tools tab');
    // After the 401 the connection needs a reconnect.
    expect(await (await alice.session.browse('/tools')).text()).toContain(
      'data-reconnect="@notion"',
    );
    // The token reached the API only: not an answer, not a record, not a log line.
    const records = await gw.services.database.db.selectFrom('executions').selectAll().execute();
    expect(JSON.stringify(records)).not.toContain(token);
    expect(gw.logs()).not.toContain(token);
  });
});
