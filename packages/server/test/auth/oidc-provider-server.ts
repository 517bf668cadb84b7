import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { JWK } from 'jose';
import Provider from 'oidc-provider';
import { onTestFinished } from 'vitest';
import { testSigningKey } from './signing-key.js';

/**
 * Test support: panva's `oidc-provider` (a certified OpenID Provider) on 127.0.0.1, with one
 * client for the gateway, its development login pages, refresh tokens rotated on every use and
 * access tokens living `accessTokenTtl` seconds. Stopped when the test ends.
 */
export interface OidcProviderServer {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The private signing key, so a test can forge a token signed as the provider. */
  signingKey: JWK;
  /** Access-token lifetime in seconds for tokens issued from now on. */
  accessTokenTtl: number;
  /** While true, the discovery document answers 503 (an IdP blip). */
  discoveryDown: boolean;
  /** While true, every endpoint answers 503, as a provider behind a failing proxy does. */
  down: boolean;
  /** Token endpoint answers by grant type. */
  grants(type: 'authorization_code' | 'refresh_token'): number;
  /** Discovery documents served. */
  discoveries(): number;
  /** Requests to the token endpoint, answered or refused. */
  tokenRequests(): number;
  /** The claims each subject's account has (`emailVerified` defaults to true). */
  accounts: Map<string, { email: string; name: string; emailVerified?: boolean }>;
}

export async function startOidcProvider(options: {
  redirectUri: string;
  accessTokenTtl?: number;
}): Promise<OidcProviderServer> {
  const signingKey = { ...(await testSigningKey()), use: 'sig' };
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const counts = { authorization_code: 0, refresh_token: 0, discovery: 0, token: 0 };
  const state: OidcProviderServer = {
    issuer,
    clientId: 'gateway-client',
    clientSecret: 'gateway-client-secret-0123456789abcdef',
    signingKey,
    accessTokenTtl: options.accessTokenTtl ?? 3600,
    discoveryDown: false,
    down: false,
    grants: (type) => counts[type],
    discoveries: () => counts.discovery,
    tokenRequests: () => counts.token,
    accounts: new Map([['alice', { email: 'alice@example.test', name: 'Alice' }]]),
  };
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: state.clientId,
        client_secret: state.clientSecret,
        redirect_uris: [options.redirectUri],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    jwks: { keys: [signingKey] },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    features: { devInteractions: { enabled: true }, revocation: { enabled: true } },
    findAccount: (_ctx: unknown, sub: string) => {
      const account = state.accounts.get(sub) ?? { email: `${sub}@example.test`, name: sub };
      return {
        accountId: sub,
        claims: () => ({
          sub,
          email: account.email,
          email_verified: 'emailVerified' in account ? account.emailVerified !== false : true,
          name: account.name,
        }),
      };
    },
    ttl: {
      AccessToken: () => state.accessTokenTtl,
      AuthorizationCode: 60,
      IdToken: 3600,
      Grant: 86_400,
      Interaction: 600,
      Session: 86_400,
      RefreshToken: 86_400,
    },
    rotateRefreshToken: true,
    cookies: { keys: ['interop-cookie-key-0123456789'] },
  });
  provider.use(async (ctx, next) => {
    if (ctx.path === '/token') counts.token += 1;
    if (ctx.path === '/.well-known/openid-configuration') counts.discovery += 1;
    if (state.down) {
      ctx.status = 503;
      ctx.body = { error: 'temporarily_unavailable' };
      return;
    }
    if (ctx.path === '/.well-known/openid-configuration') {
      if (state.discoveryDown) {
        ctx.status = 503;
        ctx.body = { error: 'temporarily_unavailable' };
        return;
      }
    }
    await next();
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

/**
 * Walks the provider's development login and consent pages as a browser would, with its own
 * cookies, from an authorization URL until the provider redirects elsewhere (the gateway's
 * callback). Returns that URL.
 */
export async function loginAtProvider(authorizeUrl: string, login = 'alice'): Promise<URL> {
  const cookies = new Map<string, string>();
  const origin = new URL(authorizeUrl).origin;
  const send = async (url: URL, init: RequestInit = {}) => {
    const headers = new Headers(init.headers);
    headers.set('cookie', [...cookies].map(([k, v]) => `${k}=${v}`).join('; '));
    const response = await fetch(url, { ...init, headers, redirect: 'manual' });
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const eq = pair.indexOf('=');
      cookies.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
    }
    return response;
  };
  let url = new URL(authorizeUrl);
  let response = await send(url);
  for (let step = 0; step < 20; step += 1) {
    const location = response.headers.get('location');
    if (location !== null) {
      url = new URL(location, url);
      if (url.origin !== origin) return url;
      response = await send(url);
      continue;
    }
    const page = await response.text();
    const action = /<form[^>]*action="([^"]+)"/.exec(page)?.[1];
    if (action === undefined) throw new Error(`no form on ${url.pathname}: ${page.slice(0, 200)}`);
    const fields = new URLSearchParams();
    for (const [input] of page.matchAll(/<input[^>]*>/g)) {
      const name = /name="([^"]+)"/.exec(input)?.[1];
      if (name !== undefined) fields.set(name, /value="([^"]*)"/.exec(input)?.[1] ?? '');
    }
    if (fields.has('login')) fields.set('login', login);
    if (fields.has('password')) fields.set('password', 'any');
    url = new URL(action, url);
    response = await send(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: fields.toString(),
    });
  }
  throw new Error('the provider did not redirect back');
}
