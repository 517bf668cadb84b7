/**
 * Issue 16: the gateway's OAuth Client ID Metadata Document (the MCP authorization spec's
 * preferred client registration). A real authorization server (oidc-provider, CIMD draft-02)
 * fetches the document over https from a gateway behind a TLS front, with dynamic client
 * registration closed, so the only way in is the document.
 */
import { describe, expect, it } from 'vitest';
import { connectV1 } from '#test/mcp/mcp-test-kit.js';
import { startOAuthUpstreamWorld } from '#test/upstream-oauth/oauth-world.js';
import { CLIENT_METADATA_PATH } from './client-metadata.js';

const text = (result: unknown) =>
  ((result as { content: { type: string; text: string }[] }).content[0]?.text ?? '') as string;

describe('the client ID metadata document', () => {
  it('is what an https gateway is known by where the server takes documents: no registration, no secret', async () => {
    const world = await startOAuthUpstreamWorld({ https: true, registration: false });
    const documentUrl = `${world.url}${CLIENT_METADATA_PATH}`;
    const alice = await world.signUp('alice');

    const served = await alice.session.browse(CLIENT_METADATA_PATH);
    expect(served.status).toBe(200);
    expect(served.headers.get('cache-control')).toBe('public, max-age=3600');
    expect(await served.json()).toEqual({
      client_id: documentUrl,
      client_name: `Gateway (${new URL(world.url).host})`,
      client_uri: world.url,
      redirect_uris: [`${world.url}/oauth/upstream/callback`],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      application_type: 'web',
    });
    // Asked at the plain listener's address, it still names the configured https address only.
    const direct = await fetch(`${world.mcp.url}${CLIENT_METADATA_PATH}`);
    expect(((await direct.json()) as { client_id: string }).client_id).toBe(documentUrl);

    expect((await world.register()).status).toBe(201);
    // The token is due at once, so the first call also refreshes it as a public client.
    world.as.accessTokenTtl = 20;
    const { answer } = await world.connect(alice, 'alice-sub');
    world.as.accessTokenTtl = 3600;
    expect(answer.status).toBe(303);
    expect(answer.headers.get('location')).toBe('/tools?connected=mcp.secure');
    expect(world.as.registrations()).toBe(0);
    expect(world.as.metadataFetches).toContain(documentUrl);

    const stored = await world.mcp.gateway.services.database.db
      .selectFrom('upstream_oauth_clients')
      .select(['client_id', 'encrypted_client_secret', 'redirect_uri'])
      .execute();
    expect(stored).toEqual([
      {
        client_id: documentUrl,
        encrypted_client_secret: null,
        redirect_uri: `${world.url}/oauth/upstream/callback`,
      },
    ]);

    const { client } = await connectV1(world.mcp.url, alice.mcpToken);
    const called = await client.callTool({ name: 'secure.whoami', arguments: {} });
    expect(called.isError).toBeFalsy();
    expect(text(called)).toBe('you are alice-sub');
    expect(world.as.grants('refresh_token')).toBe(1);
  });

  it('is not offered by a gateway on plain http, which registers instead', async () => {
    const world = await startOAuthUpstreamWorld();
    const missing = await fetch(`${world.mcp.url}${CLIENT_METADATA_PATH}`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({
      error: {
        code: 'not_found',
        message:
          "This gateway's address (GATEWAY_BASE_URL) is not https, so it has no OAuth client ID metadata document; it registers at authorization servers instead",
      },
    });

    // The authorization server takes documents too, but an http URL cannot be a client ID.
    expect((await world.register()).status).toBe(201);
    const alice = await world.signUp('alice');
    expect((await world.connect(alice, 'alice-sub')).answer.status).toBe(303);
    expect(world.as.registrations()).toBe(1);
    expect(world.as.metadataFetches).toEqual([]);
  });

  it('is not offered with GATEWAY_UPSTREAM_CLIENT_METADATA=false, for an https gateway the server cannot reach', async () => {
    const world = await startOAuthUpstreamWorld({
      https: true,
      env: { GATEWAY_UPSTREAM_CLIENT_METADATA: 'false' },
    });
    const alice = await world.signUp('alice');
    const missing = await alice.session.browse(CLIENT_METADATA_PATH);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { message: string } }).error.message).toContain(
      'GATEWAY_UPSTREAM_CLIENT_METADATA=false',
    );
    expect((await world.register()).status).toBe(201);
    expect((await world.connect(alice, 'alice-sub')).answer.status).toBe(303);
    expect(world.as.registrations()).toBe(1);
    expect(world.as.metadataFetches).toEqual([]);
  });

  it('says what to do when a plain-http gateway meets a server that takes documents only', async () => {
    const world = await startOAuthUpstreamWorld({ registration: false });
    expect((await world.register()).status).toBe(201);
    const alice = await world.signUp('alice');
    const started = await alice.session.browse('/tools/oauth/mcp.secure/connect', {
      form: { go: '1' },
    });
    expect(started.status).toBe(303);
    expect(started.headers.get('location')).toBe('/tools');
    const tools = await (await alice.session.browse('/tools')).text();
    expect(tools).toContain(
      'takes client ID metadata documents, which need the gateway&#39;s address (GATEWAY_BASE_URL) to be https',
    );
    expect(world.as.registrations()).toBe(0);
    expect(
      await world.mcp.gateway.services.database.db
        .selectFrom('upstream_oauth_clients')
        .select('client_id')
        .execute(),
    ).toEqual([]);
  });
});
