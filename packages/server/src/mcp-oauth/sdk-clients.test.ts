import {
  Client as V2Client,
  type OAuthClientProvider as V2Provider,
  StreamableHTTPClientTransport as V2Transport,
  UnauthorizedError as V2UnauthorizedError,
} from '@modelcontextprotocol/client';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { describe, expect, it, onTestFinished } from 'vitest';
import {
  consent,
  serveClientDocument,
  signedInBrowser,
  startOAuthGateway,
} from '#test/mcp-oauth/oauth-kit.js';
import { rememberSecret } from '#test/support/known-secrets.js';
import { listEndpoints } from '../mcp-endpoints/index.js';

const REDIRECT = 'http://127.0.0.1:43117/callback';

/**
 * An in-memory OAuth client provider whose browser step is a signed-in test browser. With
 * `clientMetadataUrl`, its client id is that document's URL from the start: the SDKs' own
 * `clientMetadataUrl` option takes https URLs only, and the test's document is on loopback http,
 * so the provider hands the id over as a client already known, which the SDK then uses unchanged.
 */
function provider(options: {
  clientMetadataUrl?: string;
  /** The issuer the document's client id is stamped with, as the v2 SDK stamps its own. */
  issuer?: string;
  openBrowser: (url: URL) => Promise<void>;
}): OAuthClientProvider & { saved: () => OAuthTokens | undefined } {
  const stamp = options.issuer === undefined ? {} : { issuer: options.issuer };
  let client: OAuthClientInformationMixed | undefined = options.clientMetadataUrl
    ? { client_id: options.clientMetadataUrl, ...stamp }
    : undefined;
  let tokens: OAuthTokens | undefined;
  let verifier = '';
  const metadata: OAuthClientMetadata = {
    client_name: 'SDK v1 test client',
    redirect_uris: [REDIRECT],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  };
  return {
    redirectUrl: REDIRECT,
    clientMetadata: metadata,
    clientInformation: () => client,
    saveClientInformation: (info) => {
      client = info;
    },
    tokens: () => tokens,
    saveTokens: (saved) => {
      rememberSecret(saved.access_token);
      if (saved.refresh_token) rememberSecret(saved.refresh_token);
      tokens = saved;
    },
    redirectToAuthorization: options.openBrowser,
    saveCodeVerifier: (value) => {
      verifier = value;
    },
    codeVerifier: () => verifier,
    saved: () => tokens,
  };
}

describe('MCP SDK v1 client: sign in with OAuth, no token configured', () => {
  for (const registration of ['dynamic client registration', 'a client id metadata document']) {
    it(`discovers, registers, signs in, consents and calls a tool (${registration})`, async () => {
      const gw = await startOAuthGateway();
      const session = await signedInBrowser(gw.url);
      const document =
        registration === 'dynamic client registration'
          ? undefined
          : await serveClientDocument({
              client_name: 'Document client',
              redirect_uris: [REDIRECT],
              token_endpoint_auth_method: 'none',
            });
      let redirected: URL | undefined;
      const auth = provider({
        ...(document === undefined ? {} : { clientMetadataUrl: document.clientId }),
        openBrowser: async (url) => {
          redirected = (await consent(session, url.href)).location;
        },
      });
      const transport = new V1Transport(new URL(`${gw.url}/mcp`), { authProvider: auth });
      const client = new V1Client({ name: 'v1-oauth', version: '1.0.0' });
      await expect(client.connect(transport)).rejects.toThrow(UnauthorizedError);

      expect(redirected?.origin + (redirected?.pathname ?? '')).toBe(REDIRECT);
      expect(redirected?.searchParams.get('iss')).toBe(gw.url);
      await transport.finishAuth(redirected?.searchParams.get('code') ?? '');
      expect(auth.saved()?.access_token).toMatch(/^gw_oat_[0-9A-Za-z]{40}$/);
      expect(auth.saved()?.refresh_token).toMatch(/^gw_ort_[0-9A-Za-z]{40}$/);

      const connected = new V1Client({ name: 'v1-oauth', version: '1.0.0' });
      await connected.connect(new V1Transport(new URL(`${gw.url}/mcp`), { authProvider: auth }));
      onTestFinished(() => connected.close());
      const { tools } = await connected.listTools();
      expect(tools.map((tool) => tool.name)).toContain('demo.echo.say');
      const result = await connected.callTool({ name: 'demo.echo.say', arguments: { text: 'hi' } });
      expect(result.structuredContent).toMatchObject({ text: 'hi' });

      // The grant is an MCP endpoint of kind oauth, named after the client, with its last use.
      const [user] = await gw.gateway.services.database.db
        .selectFrom('user')
        .select('id')
        .execute();
      const endpoints = await listEndpoints(gw.gateway.services.database.db, user?.id ?? '');
      expect(endpoints).toEqual([
        expect.objectContaining({
          kind: 'oauth',
          name: document === undefined ? 'SDK v1 test client' : 'Document client',
          clientId: document?.clientId ?? expect.any(String),
        }),
      ]);
      await expect
        .poll(
          async () =>
            (await listEndpoints(gw.gateway.services.database.db, user?.id ?? ''))[0]?.lastUsedAt,
        )
        .toMatch(/^\d{4}-/);
      if (document !== undefined) expect(document.hits()).toBeGreaterThan(0);

      // The call's record names the endpoint and the client it came through.
      const records = await session.browse(`/api/executions?userId=${user?.id}`);
      const { executions } = (await records.json()) as {
        executions: { toolPath: string; endpointId: string | null; clientId: string | null }[];
      };
      expect(executions).toEqual([
        expect.objectContaining({
          toolPath: 'demo.echo.say',
          endpointId: endpoints[0]?.id,
          clientId: endpoints[0]?.clientId,
        }),
      ]);
    });
  }
});

describe('MCP SDK v2 client: sign in with OAuth, no token configured', () => {
  for (const registration of ['dynamic client registration', 'a client id metadata document']) {
    it(`discovers, registers, signs in, consents and calls a tool (${registration})`, async () => {
      const gw = await startOAuthGateway();
      const session = await signedInBrowser(gw.url);
      const document =
        registration === 'dynamic client registration'
          ? undefined
          : await serveClientDocument({
              client_name: 'Document client v2',
              redirect_uris: [REDIRECT],
              token_endpoint_auth_method: 'none',
            });
      let callback: URL | undefined;
      // The v1 provider's shape is the v2 interface's too (plain data and callbacks), plus the
      // discovery state v2 keeps across the redirect to bind the code to the issuer (SEP-2352).
      let discovery: unknown;
      const auth = Object.assign(
        provider({
          ...(document === undefined
            ? {}
            : { clientMetadataUrl: document.clientId, issuer: gw.url }),
          openBrowser: async (url) => {
            callback = (await consent(session, url.href)).location;
          },
        }),
        {
          saveDiscoveryState: (state: unknown) => {
            discovery = state;
          },
          discoveryState: () => discovery,
        },
      ) as unknown as V2Provider & { saved: () => OAuthTokens | undefined };
      const transport = new V2Transport(new URL(`${gw.url}/mcp`), { authProvider: auth });
      const client = new V2Client({ name: 'v2-oauth', version: '1.0.0' });
      await expect(client.connect(transport)).rejects.toThrow(V2UnauthorizedError);
      expect(callback?.searchParams.get('iss')).toBe(gw.url);
      // Discovered through the resource metadata: Gateway is its own authorization server.
      expect(discovery).toMatchObject({
        authorizationServerUrl: gw.url,
        resourceMetadataUrl: `${gw.url}/.well-known/oauth-protected-resource/mcp`,
        authorizationServerMetadata: { issuer: gw.url },
      });
      // The v2 client checks `iss` (RFC 9207) against the issuer it discovered: a mix-up
      // (a code answered with another issuer's name) is refused before the code is spent.
      const mixedUp = new URLSearchParams(callback?.searchParams);
      mixedUp.set('iss', 'https://attacker.example');
      await expect(transport.finishAuth(mixedUp)).rejects.toThrow(/attacker.example/);
      await transport.finishAuth(callback?.searchParams ?? new URLSearchParams());
      expect(auth.saved()?.access_token).toMatch(/^gw_oat_/);

      const connected = new V2Client({ name: 'v2-oauth', version: '1.0.0' });
      await connected.connect(new V2Transport(new URL(`${gw.url}/mcp`), { authProvider: auth }));
      onTestFinished(() => connected.close());
      const { tools } = await connected.listTools();
      expect(tools.map((tool) => tool.name)).toContain('demo.echo.say');
      const result = await connected.callTool({ name: 'demo.echo.say', arguments: { text: 'v2' } });
      expect(result.structuredContent).toMatchObject({ text: 'v2' });
    });
  }
});
