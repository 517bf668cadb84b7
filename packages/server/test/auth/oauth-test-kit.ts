import { OAuth2Server } from 'oauth2-mock-server';
import { onTestFinished } from 'vitest';
import type { Env } from '../../src/config/env.js';
import type { GatewayOptions } from '../../src/gateway-settings.js';
import { createPostgresTestDatabase, postgresTestUrl } from '../db/test-database.js';
import { createTestGateway, type TestGateway } from '../support/test-gateway.js';
import { testSigningKey } from './signing-key.js';

/**
 * Test support for the OAuth flows: a real local OAuth/OIDC server (oauth2-mock-server) per
 * test, the environment that points a provider at it, and a cookie-keeping driver for the
 * browser's part of a redirect flow. Not part of the server's runtime.
 */

/** A running local OAuth server and what it saw. */
export interface MockProvider {
  server: OAuth2Server;
  /** Its issuer URL, e.g. `http://127.0.0.1:49152`. */
  url: string;
  /** Claims added to every token it signs and to its userinfo answer (change them any time). */
  claims: Record<string, unknown>;
  /** How many refresh-token grants its token endpoint answered. */
  refreshCount(): number;
  /** Every refresh token it issued, in order (the rotated ones). */
  issuedRefreshTokens: string[];
  /** Every access token it issued, in order. */
  issuedAccessTokens: string[];
}

/**
 * Starts a local OAuth/OIDC server on 127.0.0.1 (any free port), stopped when the test ends.
 * `endpoints` renames its paths (Microsoft's `/common/oauth2/v2.0/authorize`, ...).
 *
 * @example
 * const idp = await startMockProvider({ claims: { email: 'ada@example.test' } });
 */
export async function startMockProvider(
  options: { claims?: Record<string, unknown>; endpoints?: Record<string, string> } = {},
): Promise<MockProvider> {
  const server = new OAuth2Server(
    undefined,
    undefined,
    options.endpoints ? { endpoints: options.endpoints } : undefined,
  );
  await server.issuer.keys.add(await testSigningKey());
  await server.start(0, '127.0.0.1');
  onTestFinished(() => server.stop());
  const url = server.issuer.url;
  if (url === undefined) throw new Error('the mock OAuth server has no issuer URL');

  let refreshes = 0;
  const provider: MockProvider = {
    server,
    url,
    claims: { sub: 'user-1', email_verified: true, ...options.claims },
    refreshCount: () => refreshes,
    issuedRefreshTokens: [],
    issuedAccessTokens: [],
  };
  server.service.on('beforeTokenSigning', (token) => {
    Object.assign(token.payload, provider.claims);
  });
  server.service.on('beforeUserinfo', (response) => {
    response.body = { ...provider.claims };
  });
  server.service.on('beforeResponse', (response, req) => {
    const body = response.body as Record<string, unknown>;
    if (req.body.grant_type === 'refresh_token') refreshes += 1;
    if (typeof body.refresh_token === 'string')
      provider.issuedRefreshTokens.push(body.refresh_token);
    if (typeof body.access_token === 'string') provider.issuedAccessTokens.push(body.access_token);
  });
  return provider;
}

/** Microsoft's endpoint paths under an authority, for {@link startMockProvider}. */
export const MICROSOFT_ENDPOINTS = {
  authorize: '/common/oauth2/v2.0/authorize',
  token: '/common/oauth2/v2.0/token',
  jwks: '/common/discovery/v2.0/keys',
};

/** The environment that enables provider `id` with a test client. */
export function clientEnv(id: string): Env {
  const prefix = id.toUpperCase();
  return {
    [`${prefix}_CLIENT_ID`]: `${id}-client`,
    [`${prefix}_CLIENT_SECRET`]: `${id}-client-secret-0123456789`,
  };
}

/** The environment that enables a generic provider `id` against `mock` (explicit endpoints). */
export function genericProviderEnv(id: string, mock: MockProvider): Env {
  const prefix = id.toUpperCase();
  return {
    ...clientEnv(id),
    [`${prefix}_AUTHORIZATION_URL`]: `${mock.url}/authorize`,
    [`${prefix}_TOKEN_URL`]: `${mock.url}/token`,
    [`${prefix}_USERINFO_URL`]: `${mock.url}/userinfo`,
  };
}

/** The environment that enables the Microsoft social provider against `mock`. */
export function microsoftEnv(mock: MockProvider): Env {
  return { ...clientEnv('microsoft'), MICROSOFT_AUTHORITY: mock.url };
}

/** A browser's cookies, enough for the flows (no domains or paths: one site). */
export class CookieJar {
  private readonly cookies = new Map<string, string>();

  /** Takes the `Set-Cookie` headers of a response. */
  store(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const expired = attributes.some((attribute) => /^\s*max-age=0\s*$/i.test(attribute));
      if (expired || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  get(name: string): string | undefined {
    return this.cookies.get(name);
  }

  has(name: string): boolean {
    return this.cookies.has(name);
  }

  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }
}

/** Sends requests to the gateway like a browser: with its cookies, keeping new ones. */
export type Browse = (
  url: string,
  /** `form` as pairs sends a field more than once (checkboxes sharing a name). */
  init?: { method?: string; body?: unknown; form?: Record<string, string> | [string, string][] },
) => Promise<Response>;

/**
 * A browser for `fetchGateway` (the gateway's in-process fetch): requests to `gatewayOrigin` go
 * there with the jar's cookies; anything else (the OAuth server) goes over the network.
 */
export function browser(
  fetchGateway: (request: Request) => Promise<Response>,
  gatewayOrigin: string,
  jar = new CookieJar(),
) {
  const browse: Browse = async (url, init = {}) => {
    const target = new URL(url, gatewayOrigin);
    const headers = new Headers();
    let body: string | undefined;
    if (init.form !== undefined) {
      headers.set('content-type', 'application/x-www-form-urlencoded');
      headers.set('origin', gatewayOrigin);
      body = new URLSearchParams(init.form).toString();
    } else if (init.body !== undefined) {
      headers.set('content-type', 'application/json');
      headers.set('origin', gatewayOrigin);
      body = JSON.stringify(init.body);
    }
    // Browsers send Origin with every request but GET and HEAD, with or without a body.
    const method = init.method ?? (body ? 'POST' : 'GET');
    if (method !== 'GET' && method !== 'HEAD') headers.set('origin', gatewayOrigin);
    if (target.origin !== gatewayOrigin) {
      return fetch(target, { method: init.method ?? 'GET', headers, body, redirect: 'manual' });
    }
    if (jar.header() !== '') headers.set('cookie', jar.header());
    const response = await fetchGateway(new Request(target, { method, headers, body }));
    jar.store(response);
    return response;
  };

  /** Follows redirects from `response` until one leaves both the gateway and the OAuth server, or `stopAt` matches. */
  const follow = async (
    response: Response,
    stopAt?: (url: URL) => boolean,
  ): Promise<{ response: Response; url: URL | undefined }> => {
    let current = response;
    let url: URL | undefined;
    for (let hops = 0; hops < 10; hops += 1) {
      const location = current.headers.get('location');
      if (current.status < 300 || current.status >= 400 || location === null)
        return { response: current, url };
      url = new URL(location, url ?? gatewayOrigin);
      if (stopAt?.(url)) return { response: current, url };
      current = await browse(url.toString());
    }
    throw new Error('too many redirects');
  };

  return { jar, browse, follow };
}

/**
 * Signs in (or links, with `link`) through `provider` the way a browser would: better-auth's
 * sign-in (or link) endpoint, the OAuth server's authorize endpoint, the gateway's callback.
 * Returns where the gateway finally sent the browser.
 */
export async function oauthSignIn(
  session: ReturnType<typeof browser>,
  provider: string,
  options: { link?: boolean; callbackURL?: string } = {},
): Promise<URL> {
  const path = options.link ? '/api/auth/link-social' : '/api/auth/sign-in/social';
  const started = await session.browse(path, {
    body: { provider, callbackURL: options.callbackURL ?? '/signed-in', disableRedirect: true },
  });
  if (started.status !== 200)
    throw new Error(`${path} answered ${started.status}: ${await started.text()}`);
  const { url } = (await started.json()) as { url: string };
  const authorize = await session.browse(url);
  const { url: final } = await session.follow(
    authorize,
    (next) => next.pathname === '/signed-in' || next.pathname.endsWith('/error'),
  );
  if (final === undefined) throw new Error('the flow did not redirect');
  return final;
}

/** A database a storage-sensitive gateway test runs on. */
export interface GatewayTarget {
  name: string;
  /** True when it cannot run here (PostgreSQL without `TEST_DATABASE_URL`). */
  skip: boolean;
  /** A test gateway on a fresh database of this kind (`shareWith`: the same database as that gateway's). */
  create(options?: GatewayOptions & { shareWith?: TestGateway }): Promise<TestGateway>;
}

/**
 * In-memory SQLite, and PostgreSQL in a fresh schema when `TEST_DATABASE_URL` is set.
 *
 * @example
 * for (const target of gatewayTargets()) describe.skipIf(target.skip)(target.name, () => { ... });
 */
export function gatewayTargets(): GatewayTarget[] {
  const url = postgresTestUrl();
  const databaseUrls = new WeakMap<TestGateway, string>();
  return [
    { name: 'SQLite', skip: false, create: (options = {}) => createTestGateway(options) },
    {
      name: 'PostgreSQL',
      skip: url === undefined,
      async create({ shareWith, ...options } = {}) {
        if (url === undefined) throw new Error('TEST_DATABASE_URL is not set');
        let databaseUrl = shareWith === undefined ? undefined : databaseUrls.get(shareWith);
        if (databaseUrl === undefined) {
          const { schema, drop } = await createPostgresTestDatabase(url);
          onTestFinished(drop);
          const scoped = new URL(url);
          const existing = scoped.searchParams.get('options');
          scoped.searchParams.set(
            'options',
            `${existing ? `${existing} ` : ''}-c search_path=${schema}`,
          );
          databaseUrl = scoped.toString();
        }
        const gateway = await createTestGateway({ ...options, databaseUrl });
        databaseUrls.set(gateway, databaseUrl);
        return gateway;
      },
    },
  ];
}
