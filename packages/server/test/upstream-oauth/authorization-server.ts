import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair } from 'jose';
import Provider from 'oidc-provider';
import { type Agent, fetch as undiciFetch } from 'undici';
import { onTestFinished } from 'vitest';
import { rememberSecret } from '../support/known-secrets.js';

/** A started authorization server for upstream tests. */
export interface UpstreamAuthorizationServer {
  issuer: string;
  /** Clients registered through dynamic client registration (RFC 7591). */
  registrations(): number;
  /** Client ID Metadata Documents fetched, by URL, in order. */
  metadataFetches: string[];
  /** Token endpoint answers by grant type. */
  grants(type: 'authorization_code' | 'refresh_token'): number;
  /** The `resource` parameter of every authorization and token request, in order. */
  resources: string[];
  /** The `scope` parameter of every authorization request, in order. */
  authorizationScopes: string[];
  /** Access-token lifetime in seconds for tokens issued from now on. */
  accessTokenTtl: number;
  /** While set, the token endpoint answers this body (200, JSON) instead of a token. */
  tokenGarbage: string | undefined;
  /** While set, the metadata documents name this issuer instead of the real one. */
  issuerOverride: string | undefined;
  /**
   * While set, a dynamic registration asking for a scope outside these is refused (400
   * `invalid_client_metadata`), as a server's registration policy may.
   */
  registrationScopes: string[] | undefined;
}

/**
 * panva's `oidc-provider` on 127.0.0.1 as an upstream MCP server's authorization server: open
 * dynamic client registration (unless `registration` is false), Client ID Metadata Documents
 * (fetched through `documentsVia`, a dispatcher that trusts a test certificate, when given),
 * PKCE S256 (required), resource indicators (RFC 8707) issuing JWT access tokens whose audience
 * is the resource, refresh tokens, `iss` in authorization responses (RFC 9207) and its
 * development login pages (any login, password `any`). Stopped when the test ends.
 */
export async function startUpstreamAuthorizationServer(
  options: { registration?: boolean; documentsVia?: Agent } = {},
): Promise<UpstreamAuthorizationServer> {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const key = { ...(await exportJWK(privateKey)), kid: 'as-key-1', alg: 'RS256', use: 'sig' };
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const counts = { registration: 0, authorization_code: 0, refresh_token: 0 };
  const state: UpstreamAuthorizationServer = {
    issuer,
    registrations: () => counts.registration,
    metadataFetches: [],
    grants: (type) => counts[type],
    resources: [],
    authorizationScopes: [],
    accessTokenTtl: 3600,
    tokenGarbage: undefined,
    issuerOverride: undefined,
    registrationScopes: undefined,
  };
  const provider = new Provider(issuer, {
    jwks: { keys: [key] },
    scopes: ['openid', 'offline_access', 'tools', 'admin'],
    features: {
      devInteractions: { enabled: true },
      registration: { enabled: options.registration ?? true },
      clientIdMetadataDocument: { enabled: true, ack: 'draft-02' },
      revocation: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => undefined,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, resource: string) => ({
          scope: 'tools admin',
          audience: resource,
          accessTokenTTL: state.accessTokenTtl,
          accessTokenFormat: 'jwt',
          jwt: { sign: { alg: 'RS256' } },
        }),
      },
    },
    issueRefreshToken: () => true,
    findAccount: (_ctx: unknown, sub: string) => ({
      accountId: sub,
      claims: () => ({ sub }),
    }),
    ttl: {
      AccessToken: () => state.accessTokenTtl,
      AuthorizationCode: 60,
      Grant: 86_400,
      Interaction: 600,
      Session: 86_400,
      RefreshToken: 86_400,
    },
    rotateRefreshToken: true,
    cookies: { keys: ['upstream-as-cookie-key-0123456789'] },
    // The provider refuses to fetch from loopback addresses, as it should; in a test the
    // gateway's document is on one, behind a front whose certificate `documentsVia` trusts.
    fetch: (url: URL | string, init: Parameters<typeof undiciFetch>[1]) => {
      state.metadataFetches.push(String(url));
      return undiciFetch(url, {
        ...init,
        ...(options.documentsVia === undefined ? {} : { dispatcher: options.documentsVia }),
      });
    },
  });
  provider.use(async (ctx, next) => {
    if (ctx.path === '/auth' || ctx.path === '/token') {
      const url = new URL(`${issuer}${(ctx as { url?: string }).url ?? ''}`);
      const fromQuery = url.searchParams.get('resource');
      if (fromQuery !== null) state.resources.push(fromQuery);
      const scope = url.searchParams.get('scope');
      if (ctx.path === '/auth' && scope !== null) state.authorizationScopes.push(scope);
    }
    if (ctx.path === '/reg' && ctx.method === 'POST' && state.registrationScopes !== undefined) {
      // Read here, then handed to the provider as a parsed body (its parser's fallback).
      const chunks: Buffer[] = [];
      for await (const chunk of ctx.req) chunks.push(chunk as Buffer);
      const asked = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { scope?: string };
      const allowed = state.registrationScopes;
      if (
        (asked.scope ?? '').split(' ').some((scope) => scope !== '' && !allowed.includes(scope))
      ) {
        ctx.status = 400;
        ctx.body = { error: 'invalid_client_metadata', error_description: 'scope not allowed' };
        return;
      }
      ctx.request.body = asked;
    }
    if (ctx.path === '/token' && state.tokenGarbage !== undefined) {
      ctx.status = 200;
      ctx.body = state.tokenGarbage;
      return;
    }
    await next();
    // Every token and client secret it hands out is looked for in the gateway's logs.
    if (ctx.path === '/token' || ctx.path === '/reg') {
      const issued = ctx.body as Record<string, unknown> | undefined;
      for (const field of ['access_token', 'refresh_token', 'id_token', 'client_secret']) {
        const value = issued?.[field];
        if (typeof value === 'string') rememberSecret(value);
      }
    }
    const resource = ctx.oidc?.params?.resource;
    if (ctx.path === '/token' && typeof resource === 'string') state.resources.push(resource);
    if (ctx.path === '/reg' && ctx.status === 201) counts.registration += 1;
    if (
      state.issuerOverride !== undefined &&
      (ctx.path === '/.well-known/openid-configuration' ||
        ctx.path === '/.well-known/oauth-authorization-server')
    ) {
      ctx.body = { ...(ctx.body as Record<string, unknown>), issuer: state.issuerOverride };
    }
  });
  provider.on('grant.success', (ctx) => {
    const type = ctx.oidc?.params?.grant_type;
    if (type === 'authorization_code' || type === 'refresh_token') counts[type] += 1;
  });
  server.on('request', provider.callback());
  onTestFinished(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return state;
}
