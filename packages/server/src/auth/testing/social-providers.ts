import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type OAuth2EndpointsInput, OAuth2Server } from 'oauth2-mock-server';
import { onTestFinished } from 'vitest';
import type { Env } from '../../config/env.js';
import { rememberSecret } from '../../testing/known-secrets.js';
import { clientEnv } from '../oauth-test-kit.js';
import { routeUpstream, type UpstreamRouting } from './route-upstream.js';

/**
 * Test support: GitHub, Google and Discord as better-auth's social providers see them, played by a
 * real local OAuth server (oauth2-mock-server) that the test process's `fetch` reaches in place of
 * the public hosts (see {@link routeUpstream}). Each one serves its provider's real paths and
 * answers in its provider's shapes: GitHub's `/user` and `/user/emails`, Google's ID token claims,
 * Discord's `/users/@me`, and each provider's token responses, refresh behaviour and errors.
 *
 * Like the real providers, and unlike a bare mock, they check what they are sent: codes are single
 * use and bound to their redirect URI, the client secret must be right, a refresh token must be
 * one they issued (and unspent, where the provider rotates them), the profile APIs want a live
 * access token, and what they reveal follows the scopes the user granted.
 */

/** The three social providers whose endpoints better-auth hard-codes. */
export type SocialProviderId = 'github' | 'google' | 'discord';

/** The person signed in at the provider. */
export interface ProviderPerson {
  /** The provider's account id: GitHub's numeric id, Google's `sub`, Discord's snowflake. */
  id: string;
  email: string;
  /** Whether the provider reports the email as verified. */
  emailVerified: boolean;
  name: string;
}

/** A running provider and what it saw. */
export interface SocialProviderMock {
  id: SocialProviderId;
  server: OAuth2Server;
  /** The local server's origin, e.g. `http://localhost:49152`. */
  url: string;
  /** The environment that enables this provider with the client the mock expects. */
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

/** A token endpoint error: the status and body the real provider answers with. */
type TokenError = { statusCode: number; body: Record<string, unknown> };

interface Grant {
  person: ProviderPerson;
  scopes: string[];
  /** The authorization request's parameters (Google's `access_type`, ...). */
  authorize: URLSearchParams;
}

interface ProviderSpec {
  id: SocialProviderId;
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
    tokens: { accessToken: string; refreshToken?: string; idToken: unknown },
    grant: Grant,
  ): Record<string, unknown>;
  /** The answer to an unknown, spent or misdirected code or refresh token. */
  invalidGrant(grantType: string): TokenError;
  invalidClient: TokenError;
  /** Claims of the ID token (Google only), or undefined to leave the server's own. */
  idTokenClaims?(grant: Grant, clientId: string): Record<string, unknown>;
  /** The profile API: what `GET <userinfo path>` answers. */
  profile?(grant: Grant): Record<string, unknown>;
  /** Other paths that answer like the profile API. */
  profileAliases?: string[];
  /** Further API routes (GitHub's `/user/emails`). */
  routes?: Record<string, (grant: Grant) => { statusCode: number; body: unknown }>;
  /** A request the profile API refuses before looking at the token (GitHub wants a User-Agent). */
  refuse?(req: IncomingMessage): { statusCode: number; body: unknown } | undefined;
  unauthorized: { statusCode: number; body: unknown };
}

const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
function base62(length: number): string {
  return [...randomBytes(length)].map((byte) => BASE62[byte % 62]).join('');
}

function scopesOf(value: string | null): string[] {
  return (value ?? '').split(/[\s,]+/).filter(Boolean);
}

function sendJson(res: ServerResponse, statusCode: number, body: unknown): void {
  res.statusCode = statusCode;
  res.setHeader('content-type', 'application/json; charset=utf-8');
  res.end(JSON.stringify(body));
}

function bearer(req: IncomingMessage): string | undefined {
  return /^(?:Bearer|token)\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
}

function githubLogin(person: ProviderPerson): string {
  return person.name.toLowerCase().replace(/[^a-z0-9]+/g, '-');
}

async function startSocialMock(
  spec: ProviderSpec,
  person: ProviderPerson,
): Promise<SocialProviderMock> {
  const env = clientEnv(spec.id);
  const prefix = spec.id.toUpperCase();
  const clientId = env[`${prefix}_CLIENT_ID`] ?? '';
  const clientSecret = env[`${prefix}_CLIENT_SECRET`] ?? '';

  const server = new OAuth2Server(undefined, undefined, { endpoints: spec.endpoints });
  await server.issuer.keys.generate('RS256');
  await server.start(0, '127.0.0.1');
  onTestFinished(() => server.stop());
  const url = server.issuer.url;
  if (url === undefined) throw new Error('the mock OAuth server has no issuer URL');

  let refreshes = 0;
  /** Authorization codes not yet exchanged, with what they grant and where they were sent. */
  const codes = new Map<string, Grant & { redirectUri: string }>();
  const accessTokens = new Map<string, Grant>();
  const refreshTokens = new Map<string, Grant>();
  const mock: SocialProviderMock = {
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
    if (query.get('client_id') !== clientId) {
      redirect.searchParams.delete('code');
      redirect.searchParams.set('error', 'invalid_client');
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
    const fail = (error: TokenError) => {
      response.statusCode = error.statusCode;
      response.body = error.body;
    };
    if (body.client_id !== clientId || body.client_secret !== clientSecret)
      return fail(spec.invalidClient);

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
    response.body = spec.tokenBody({ accessToken, refreshToken, idToken }, grant);
  });

  type Answer = { statusCode: number; body: unknown };
  /** An API answer: refused (no User-Agent, ...), unauthorized without a live token, else `answer`. */
  const api = (req: IncomingMessage, answer: (grant: Grant) => Answer): Answer => {
    mock.requests.push(`GET ${path(req)}`);
    const grant = grantOf(req);
    return spec.refuse?.(req) ?? (grant === undefined ? spec.unauthorized : answer(grant));
  };
  const profile = (grant: Grant): Answer =>
    spec.profile === undefined
      ? { statusCode: 404, body: {} }
      : { statusCode: 200, body: spec.profile(grant) };

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

  return mock;
}

function personWith(defaults: ProviderPerson, given: Partial<ProviderPerson> = {}): ProviderPerson {
  return { ...defaults, ...given };
}

/** Options of {@link startGitHub}. */
export interface GitHubOptions {
  person?: Partial<ProviderPerson>;
  /** Whether `/user` shows the email (the user made it public). GitHub's default keeps it private. */
  publicEmail?: boolean;
  /**
   * A GitHub App with expiring user tokens: access tokens last 8 hours and come with a refresh
   * token, rotated on every refresh. Without it, an OAuth App: tokens never expire and no refresh
   * token is issued.
   */
  expiringTokens?: boolean;
}

/**
 * GitHub on a local server: `github.com/login/oauth/{authorize,access_token}`,
 * `api.github.com/user` and `/user/emails`. Token errors come with status 200, as GitHub sends
 * them; `/user/emails` needs the `user:email` scope (OAuth Apps) and every API call a User-Agent.
 *
 * @example
 * const github = await startGitHub({ person: { email: 'ada@example.test' } });
 * const gw = await createTestGateway({ env: github.env });
 */
export async function startGitHub(options: GitHubOptions = {}): Promise<SocialProviderMock> {
  const app = options.expiringTokens === true;
  const person = personWith(
    { id: '583231', email: 'mona@example.test', emailVerified: true, name: 'Mona Octocat' },
    options.person,
  );
  const canReadEmails = (grant: Grant) =>
    app || grant.scopes.includes('user:email') || grant.scopes.includes('user');
  return startSocialMock(
    {
      id: 'github',
      endpoints: {
        authorize: '/login/oauth/authorize',
        token: '/login/oauth/access_token',
        userinfo: '/user',
      },
      origins: ['https://github.com', 'https://api.github.com'],
      newAccessToken: () => `${app ? 'ghu' : 'gho'}_${base62(36)}`,
      newRefreshToken: () => `ghr_${base62(76)}`,
      issuesRefreshToken: () => app,
      rotatesRefreshTokens: true,
      tokenBody: ({ accessToken, refreshToken }, grant) =>
        app
          ? {
              access_token: accessToken,
              expires_in: 28_800,
              refresh_token: refreshToken,
              refresh_token_expires_in: 15_811_200,
              token_type: 'bearer',
              scope: '',
            }
          : { access_token: accessToken, token_type: 'bearer', scope: grant.scopes.join(',') },
      invalidGrant: (grantType) => ({
        statusCode: 200,
        body:
          grantType === 'refresh_token'
            ? {
                error: 'bad_refresh_token',
                error_description: 'The refresh token passed is incorrect or expired.',
              }
            : {
                error: 'bad_verification_code',
                error_description: 'The code passed is incorrect or expired.',
              },
      }),
      invalidClient: {
        statusCode: 200,
        body: {
          error: 'incorrect_client_credentials',
          error_description: 'The client_id and/or client_secret passed are incorrect.',
        },
      },
      refuse: (req) =>
        req.headers['user-agent']
          ? undefined
          : {
              statusCode: 403,
              body: {
                message:
                  'Request forbidden by administrative rules. Please make sure your request has a User-Agent header',
              },
            },
      unauthorized: {
        statusCode: 401,
        body: { message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest' },
      },
      profile: ({ person }) => {
        const login = githubLogin(person);
        return {
          login,
          id: Number(person.id),
          node_id: `U_kgDO${person.id}`,
          avatar_url: `https://avatars.githubusercontent.com/u/${person.id}?v=4`,
          html_url: `https://github.com/${login}`,
          type: 'User',
          site_admin: false,
          name: person.name,
          company: null,
          blog: '',
          location: null,
          email: options.publicEmail ? person.email : null,
          bio: null,
          public_repos: 8,
          followers: 2,
          following: 1,
          created_at: '2015-03-04T12:00:00Z',
          updated_at: '2026-01-01T12:00:00Z',
        };
      },
      routes: {
        '/user/emails': (grant) =>
          canReadEmails(grant)
            ? {
                statusCode: 200,
                body: [
                  {
                    email: grant.person.email,
                    primary: true,
                    verified: grant.person.emailVerified,
                    visibility: options.publicEmail ? 'public' : 'private',
                  },
                  {
                    email: `${grant.person.id}+${githubLogin(grant.person)}@users.noreply.github.com`,
                    primary: false,
                    verified: true,
                    visibility: null,
                  },
                ],
              }
            : {
                statusCode: 404,
                body: { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' },
              },
      },
    },
    person,
  );
}

/** Options of {@link startGoogle}. */
export interface GoogleOptions {
  person?: Partial<ProviderPerson>;
}

const GOOGLE_SCOPES: Readonly<Record<string, string>> = {
  email: 'https://www.googleapis.com/auth/userinfo.email',
  profile: 'https://www.googleapis.com/auth/userinfo.profile',
};

/** What Google says about the person, in the ID token and at its OIDC userinfo endpoint. */
function googleClaims({ person, scopes }: Grant): Record<string, unknown> {
  const [given, ...family] = person.name.split(' ');
  return {
    sub: person.id,
    ...(scopes.includes('email')
      ? { email: person.email, email_verified: person.emailVerified }
      : {}),
    ...(scopes.includes('profile')
      ? {
          name: person.name,
          picture: `https://lh3.googleusercontent.com/a/${person.id}=s96-c`,
          given_name: given,
          family_name: family.join(' '),
        }
      : {}),
  };
}

/**
 * Google on a local server: `accounts.google.com/o/oauth2/v2/auth`, `oauth2.googleapis.com/token`,
 * the signing keys at `www.googleapis.com/oauth2/v3/certs` and the OIDC userinfo endpoint
 * `openidconnect.googleapis.com/v1/userinfo`. Identity is in the ID token
 * (issuer `https://accounts.google.com`, audience the client id), with `email` and `profile`
 * claims only for those scopes. A refresh token comes only with `access_type=offline`, and after
 * the first time only with `prompt=consent`; refreshing never rotates it.
 *
 * @example
 * const google = await startGoogle({ person: { email: 'ada@example.test' } });
 */
export async function startGoogle(options: GoogleOptions = {}): Promise<SocialProviderMock> {
  const person = personWith(
    { id: '110169484474386276334', email: 'ada@example.test', emailVerified: true, name: 'Ada L' },
    options.person,
  );
  const consented = new Set<string>();
  return startSocialMock(
    {
      id: 'google',
      endpoints: {
        authorize: '/o/oauth2/v2/auth',
        token: '/token',
        jwks: '/oauth2/v3/certs',
        userinfo: '/v1/userinfo',
      },
      origins: [
        'https://accounts.google.com',
        'https://oauth2.googleapis.com',
        'https://www.googleapis.com',
        'https://openidconnect.googleapis.com',
      ],
      newAccessToken: () => `ya29.a0${base62(120)}`,
      newRefreshToken: () => `1//0${base62(100)}`,
      issuesRefreshToken: ({ authorize, person }, grantType) => {
        if (grantType !== 'authorization_code' || authorize.get('access_type') !== 'offline')
          return false;
        const first = !consented.has(person.id);
        consented.add(person.id);
        return first || scopesOf(authorize.get('prompt')).includes('consent');
      },
      rotatesRefreshTokens: false,
      tokenBody: ({ accessToken, refreshToken, idToken }, grant) => ({
        access_token: accessToken,
        expires_in: 3599,
        ...(refreshToken === undefined ? {} : { refresh_token: refreshToken }),
        scope: grant.scopes.map((scope) => GOOGLE_SCOPES[scope] ?? scope).join(' '),
        token_type: 'Bearer',
        ...(grant.scopes.includes('openid') ? { id_token: idToken } : {}),
      }),
      idTokenClaims: (grant, clientId) => ({
        iss: 'https://accounts.google.com',
        azp: clientId,
        aud: clientId,
        ...googleClaims(grant),
      }),
      profile: googleClaims,
      invalidGrant: (grantType) => ({
        statusCode: 400,
        body: {
          error: 'invalid_grant',
          error_description:
            grantType === 'refresh_token' ? 'Token has been expired or revoked.' : 'Bad Request',
        },
      }),
      invalidClient: {
        statusCode: 401,
        body: { error: 'invalid_client', error_description: 'Unauthorized' },
      },
      unauthorized: {
        statusCode: 401,
        body: { error: 'invalid_request', error_description: 'Invalid Credentials' },
      },
    },
    person,
  );
}

/** Options of {@link startDiscord}. */
export interface DiscordOptions {
  person?: Partial<ProviderPerson>;
}

/**
 * Discord on a local server: `discord.com/api/oauth2/{authorize,token}` and
 * `discord.com/api/users/@me`, whose `email` and `verified` need the `email` scope. Access tokens
 * last a week and come with a refresh token, rotated on every refresh.
 *
 * @example
 * const discord = await startDiscord({ person: { email: 'ada@example.test' } });
 */
export async function startDiscord(options: DiscordOptions = {}): Promise<SocialProviderMock> {
  const person = personWith(
    { id: '80351110224678912', email: 'nelly@example.test', emailVerified: true, name: 'Nelly' },
    options.person,
  );
  return startSocialMock(
    {
      id: 'discord',
      endpoints: {
        authorize: '/api/oauth2/authorize',
        token: '/api/oauth2/token',
        // better-fetch sends `@` percent-encoded; Discord answers both spellings.
        userinfo: '/api/users/%40me',
      },
      profileAliases: ['/api/users/@me'],
      origins: ['https://discord.com'],
      newAccessToken: () => base62(30),
      newRefreshToken: () => base62(30),
      issuesRefreshToken: () => true,
      rotatesRefreshTokens: true,
      tokenBody: ({ accessToken, refreshToken }, grant) => ({
        token_type: 'Bearer',
        access_token: accessToken,
        expires_in: 604_800,
        refresh_token: refreshToken,
        scope: grant.scopes.join(' '),
      }),
      invalidGrant: () => ({ statusCode: 400, body: { error: 'invalid_grant' } }),
      invalidClient: { statusCode: 401, body: { error: 'invalid_client' } },
      unauthorized: { statusCode: 401, body: { message: '401: Unauthorized', code: 0 } },
      profile: ({ person, scopes }) => ({
        id: person.id,
        username: person.name.toLowerCase().replace(/[^a-z0-9_.]+/g, '_'),
        avatar: null,
        discriminator: '0',
        public_flags: 0,
        flags: 0,
        banner: null,
        accent_color: null,
        global_name: person.name,
        avatar_decoration_data: null,
        banner_color: null,
        mfa_enabled: false,
        locale: 'en-US',
        premium_type: 0,
        ...(scopes.includes('email')
          ? { email: person.email, verified: person.emailVerified }
          : {}),
      }),
    },
    person,
  );
}

/** Starts the mock of social provider `id` with its defaults. */
export function startSocialProvider(
  id: SocialProviderId,
  options: { person?: Partial<ProviderPerson> } = {},
): Promise<SocialProviderMock> {
  switch (id) {
    case 'github':
      return startGitHub(options);
    case 'google':
      return startGoogle(options);
    case 'discord':
      return startDiscord(options);
  }
}
