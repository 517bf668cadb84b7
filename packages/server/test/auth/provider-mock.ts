import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type OAuth2EndpointsInput, OAuth2Server } from 'oauth2-mock-server';
import { onTestFinished } from 'vitest';
import type { Env } from '../../src/config/env.js';
import { rememberSecret } from '../support/known-secrets.js';
import { clientEnv } from './oauth-test-kit.js';
import { routeUpstream, type UpstreamRouting } from './route-upstream.js';
import { testSigningKey } from './signing-key.js';

/**
 * Test support: the engine behind the provider mocks (`social-providers.ts`,
 * `generic-providers.ts`). A real local OAuth server (oauth2-mock-server) serves one provider's
 * real paths, answers in its shapes, and is reached in place of the provider's public hosts
 * through {@link routeUpstream}, so the gateway runs with nothing but the provider's client id
 * and secret set.
 *
 * Like the real providers, and unlike a bare mock, it checks what it is sent: codes are single
 * use and bound to their redirect URI, the client secret must be right, a refresh token must be
 * one it issued (and unspent, where the provider rotates them), the APIs want a live access
 * token, and what they reveal follows the scopes the user granted.
 */

/** The person signed in at the provider. */
export interface ProviderPerson {
  /** The provider's account id: GitHub's numeric id, Google's `sub`, Atlassian's `account_id`, ... */
  id: string;
  email: string;
  /** Whether the provider reports the email as verified (where it reports anything). */
  emailVerified: boolean;
  name: string;
}

/** A running provider and what it saw. */
export interface ProviderMock {
  /** The gateway's id of the provider it plays (`github`, `gcp`, `atlassian`, ...). */
  id: string;
  server: OAuth2Server;
  /** The local server's origin, e.g. `http://127.0.0.1:49152`. */
  url: string;
  /** The environment that enables this provider: only its client id and secret. */
  env: Env;
  /** The person who signs in (change it any time; the next answers use it). */
  person: ProviderPerson;
  /** The query of every authorization request (the browser's visit), in order. */
  authorizeRequests: URLSearchParams[];
  /** Every request the local server answered, as `METHOD /path` plus the grant type for tokens. */
  requests: string[];
  /** How many refresh-token grants it answered with new tokens. */
  refreshCount(): number;
  /** Every access token it issued, in order. */
  issuedAccessTokens: string[];
  /** Every refresh token it issued, in order. */
  issuedRefreshTokens: string[];
  /** The routing of the public hosts to this server (shared by every provider of the test). */
  routing: UpstreamRouting;
  /** The user revokes the app at the provider: every token issued so far stops working. */
  revokeAccess(): void;
}

/** An answer of the provider: status and JSON body. */
export interface Answer {
  statusCode: number;
  body: unknown;
}

/** What the user granted: who, which scopes, and the authorization request's parameters. */
export interface Grant {
  person: ProviderPerson;
  scopes: string[];
  /** The authorization request's parameters (Google's `access_type`, Atlassian's `audience`, ...). */
  authorize: URLSearchParams;
}

/** How one provider behaves. */
export interface ProviderSpec {
  /** The gateway's provider id; its client id and secret are {@link clientEnv}'s. */
  id: string;
  /** The provider's real paths, so only the origin is rewritten. */
  endpoints: OAuth2EndpointsInput;
  /** The public origins to send to the local server. */
  origins: string[];
  newAccessToken(): string;
  newRefreshToken(): string;
  /** Whether to issue a refresh token with this grant. */
  issuesRefreshToken(grant: Grant, grantType: string): boolean;
  /** Whether a refresh spends the refresh token used (a new one comes back). */
  rotatesRefreshTokens: boolean;
  /** The token response body, given the tokens issued and the ID token the server signed. */
  tokenBody(
    tokens: { accessToken: string; refreshToken?: string; idToken: unknown; grantType: string },
    grant: Grant,
  ): Record<string, unknown>;
  /** The answer to an unknown, spent or misdirected code or refresh token. */
  invalidGrant(grantType: string): Answer;
  invalidClient: Answer;
  /** An authorization request the provider refuses: the `error` it redirects back with. */
  refuseAuthorize?(query: URLSearchParams): string | undefined;
  /** Claims of the ID token, or undefined to leave the server's own. */
  idTokenClaims?(grant: Grant, clientId: string): Record<string, unknown>;
  /** The profile API: what `GET <userinfo path>` answers. */
  profile?(grant: Grant): Record<string, unknown>;
  /** A profile request refused for what was granted (a scope missing, ...). */
  profileRefusal?(grant: Grant): Answer | undefined;
  /** Other paths that answer like the profile API. */
  profileAliases?: string[];
  /** Further `GET` API routes (GitHub's `/user/emails`). */
  routes?: Record<string, (grant: Grant) => Answer>;
  /** `POST` API routes with a JSON body (Linear's GraphQL endpoint). */
  postRoutes?: Record<string, (grant: Grant, body: unknown) => Answer>;
  /** A request the APIs refuse before looking at the token (GitHub wants a User-Agent). */
  refuse?(req: IncomingMessage): Answer | undefined;
  unauthorized: Answer;
}

const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** Random letters and digits, for token values shaped like a provider's. */
export function base62(length: number): string {
  return [...randomBytes(length)].map((byte) => BASE62[byte % 62]).join('');
}

/** Random lower-case hex. */
export function hex(length: number): string {
  return randomBytes(Math.ceil(length / 2))
    .toString('hex')
    .slice(0, length);
}

/** The scopes of a `scope` parameter, space- or comma-separated. */
export function scopesOf(value: string | null): string[] {
  return (value ?? '').split(/[\s,]+/).filter(Boolean);
}

/** `defaults` with what a test gave. */
export function personWith(
  defaults: ProviderPerson,
  given: Partial<ProviderPerson> = {},
): ProviderPerson {
  return { ...defaults, ...given };
}

function sendJson(res: ServerResponse, statusCode: number, body: unknown): void {
  res.statusCode = statusCode;
  res.setHeader('content-type', 'application/json; charset=utf-8');
  res.end(JSON.stringify(body));
}

function bearer(req: IncomingMessage): string | undefined {
  return /^(?:Bearer|token)\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
}

/** Client credentials from the body (`client_secret_post`) or HTTP Basic (`client_secret_basic`). */
function clientCredentials(
  req: IncomingMessage,
  body: Record<string, string | undefined>,
): { id?: string | undefined; secret?: string | undefined } {
  const basic = /^Basic\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
  if (basic === undefined) return { id: body.client_id, secret: body.client_secret };
  const decoded = Buffer.from(basic, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return {
    id: decodeURIComponent(decoded.slice(0, colon)),
    secret: decodeURIComponent(decoded.slice(colon + 1)),
  };
}

/**
 * Starts the local server for `spec`, routes the provider's public origins to it for the rest of
 * the test, and stops it when the test ends.
 */
export async function startProviderMock(
  spec: ProviderSpec,
  person: ProviderPerson,
): Promise<ProviderMock> {
  const env = clientEnv(spec.id);
  const prefix = spec.id.toUpperCase();
  const clientId = env[`${prefix}_CLIENT_ID`] ?? '';
  const clientSecret = env[`${prefix}_CLIENT_SECRET`] ?? '';

  const server = new OAuth2Server(undefined, undefined, { endpoints: spec.endpoints });
  await server.issuer.keys.add(await testSigningKey());
  await server.start(0, '127.0.0.1');
  onTestFinished(() => server.stop());
  const url = server.issuer.url;
  if (url === undefined) throw new Error('the mock OAuth server has no issuer URL');

  let refreshes = 0;
  /** Authorization codes not yet exchanged, with what they grant and where they were sent. */
  const codes = new Map<string, Grant & { redirectUri: string }>();
  const accessTokens = new Map<string, Grant>();
  const refreshTokens = new Map<string, Grant>();
  const mock: ProviderMock = {
    id: spec.id,
    server,
    url,
    env,
    person,
    authorizeRequests: [],
    requests: [],
    refreshCount: () => refreshes,
    issuedAccessTokens: [],
    issuedRefreshTokens: [],
    routing: routeUpstream(Object.fromEntries(spec.origins.map((origin) => [origin, url]))),
    revokeAccess() {
      accessTokens.clear();
      refreshTokens.clear();
    },
  };
  const path = (req: IncomingMessage) => new URL(req.url ?? '/', url).pathname;
  const grantOf = (req: IncomingMessage) => {
    const token = bearer(req);
    return token === undefined ? undefined : accessTokens.get(token);
  };

  server.service.on('beforeAuthorizeRedirect', ({ url: redirect }, req) => {
    const query = new URL(req.url ?? '/', url).searchParams;
    mock.authorizeRequests.push(query);
    mock.requests.push(`GET ${path(req)}`);
    const code = redirect.searchParams.get('code');
    if (code === null) return;
    const refused =
      query.get('client_id') === clientId ? spec.refuseAuthorize?.(query) : 'invalid_client';
    if (refused !== undefined) {
      redirect.searchParams.delete('code');
      redirect.searchParams.set('error', refused);
      return;
    }
    codes.set(code, {
      person: { ...mock.person },
      scopes: scopesOf(query.get('scope')),
      authorize: query,
      redirectUri: query.get('redirect_uri') ?? '',
    });
  });

  // Signed before `beforeResponse` runs, so the grant is looked up without spending it here.
  server.service.on('beforeTokenSigning', (token, req) => {
    if (spec.idTokenClaims === undefined) return;
    const body = req.body as unknown as Record<string, string | undefined>;
    const refreshed = refreshTokens.get(body.refresh_token ?? '');
    const grant =
      body.grant_type === 'refresh_token'
        ? refreshed && { ...refreshed, person: { ...mock.person } }
        : codes.get(body.code ?? '');
    if (grant !== undefined) Object.assign(token.payload, spec.idTokenClaims(grant, clientId));
  });

  server.service.on('beforeResponse', (response, req) => {
    const body = req.body as unknown as Record<string, string | undefined>;
    const grantType = body.grant_type ?? '';
    mock.requests.push(`POST ${path(req)} (${grantType})`);
    const fail = (error: Answer) => {
      response.statusCode = error.statusCode;
      response.body = error.body as Record<string, unknown>;
    };
    const client = clientCredentials(req, body);
    if (client.id !== clientId || client.secret !== clientSecret) return fail(spec.invalidClient);

    let grant: Grant | undefined;
    if (grantType === 'authorization_code') {
      const code = codes.get(body.code ?? '');
      codes.delete(body.code ?? '');
      if (code === undefined || code.redirectUri !== body.redirect_uri)
        return fail(spec.invalidGrant(grantType));
      grant = code;
    } else if (grantType === 'refresh_token') {
      grant = refreshTokens.get(body.refresh_token ?? '');
      if (grant === undefined) return fail(spec.invalidGrant(grantType));
      if (spec.rotatesRefreshTokens) refreshTokens.delete(body.refresh_token ?? '');
      // A refreshed grant speaks for the person as they are now (a renamed account, ...).
      grant = { ...grant, person: { ...mock.person } };
      refreshes += 1;
    } else {
      return fail({ statusCode: 400, body: { error: 'unsupported_grant_type' } });
    }

    const accessToken = spec.newAccessToken();
    accessTokens.set(accessToken, grant);
    mock.issuedAccessTokens.push(accessToken);
    rememberSecret(accessToken);
    let refreshToken: string | undefined;
    if (spec.issuesRefreshToken(grant, grantType)) {
      refreshToken = spec.newRefreshToken();
      refreshTokens.set(refreshToken, grant);
      mock.issuedRefreshTokens.push(refreshToken);
      rememberSecret(refreshToken);
    }
    const idToken = (response.body as Record<string, unknown>).id_token;
    rememberSecret(idToken);
    response.body = spec.tokenBody({ accessToken, refreshToken, idToken, grantType }, grant);
  });

  /** An API answer: refused (no User-Agent, ...), unauthorized without a live token, else `answer`. */
  const api = (req: IncomingMessage, answer: (grant: Grant) => Answer): Answer => {
    mock.requests.push(`${req.method ?? 'GET'} ${path(req)}`);
    const grant = grantOf(req);
    return spec.refuse?.(req) ?? (grant === undefined ? spec.unauthorized : answer(grant));
  };
  const profile = (grant: Grant): Answer =>
    spec.profileRefusal?.(grant) ??
    (spec.profile === undefined
      ? { statusCode: 404, body: {} }
      : { statusCode: 200, body: spec.profile(grant) });

  server.service.on('beforeUserinfo', (response, req) => {
    const { statusCode, body } = api(req, profile);
    response.statusCode = statusCode;
    response.body = body as Record<string, unknown>;
  });
  const routes = Object.entries({
    ...Object.fromEntries((spec.profileAliases ?? []).map((alias) => [alias, profile])),
    ...spec.routes,
  });
  for (const [route, answer] of routes) {
    server.service.addRoute('GET', route, (req, res) => {
      const { statusCode, body } = api(req, answer);
      sendJson(res, statusCode, body);
    });
  }
  for (const [route, answer] of Object.entries(spec.postRoutes ?? {})) {
    server.service.addRoute('POST', route, (req, res) => {
      const received = (req as IncomingMessage & { body?: unknown }).body;
      const { statusCode, body } = api(req, (grant) => answer(grant, received));
      sendJson(res, statusCode, body);
    });
  }

  return mock;
}
