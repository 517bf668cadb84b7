import type { Context, Hono } from 'hono';
import { clientAddress } from '../auth/client-ip.js';
import type { GatewayAuth } from '../auth/create-auth.js';
import { consumeRateLimit, type RateLimitRule } from '../auth/rate-limit.js';
import type { McpOAuthSettings } from '../config/env-mcp-oauth.js';
import type { GatewayDatabase } from '../db/database.js';
import type { AppEnv } from '../http/app-env.js';
import type { ServerLogger } from '../http/logger.js';
import { readBodyText } from '../http/request-body.js';
import type { ClientRegistry } from './clients.js';
import { OAuthError, oauthEndpoint } from './errors.js';
import { type Lifetimes, redeemCode, refreshGrant, revokeToken } from './grants.js';

export const TOKEN_PATH = '/oauth/token';
export const REGISTER_PATH = '/oauth/register';
export const REVOKE_PATH = '/oauth/revoke';

/** Registrations per client address: enough for a person's clients, not for a flood. */
const REGISTRATION_LIMIT: RateLimitRule = { window: 60 * 60, max: 20 };

/** What the token, registration and revocation endpoints are built from. */
export interface EndpointDeps {
  app: Hono<AppEnv>;
  services: { database: GatewayDatabase; auth: GatewayAuth };
  logger: ServerLogger;
  clients: ClientRegistry;
  settings: McpOAuthSettings;
}

/** The url-encoded form of a token or revocation request; a parameter sent twice is refused. */
async function readTokenForm(c: Context): Promise<Map<string, string>> {
  const type = c.req.header('content-type') ?? '';
  if (!type.toLowerCase().startsWith('application/x-www-form-urlencoded')) {
    throw new OAuthError(
      'invalid_request',
      'Send the request as application/x-www-form-urlencoded',
    );
  }
  const form = new Map<string, string>();
  for (const [name, value] of new URLSearchParams(await readBodyText(c))) {
    if (form.has(name)) throw new OAuthError('invalid_request', `${name} is given more than once`);
    form.set(name, value);
  }
  return form;
}

/** The public client's id, from the body; a client secret is refused (there are none). */
function clientIdOf(form: Map<string, string>): string {
  if (form.has('client_secret')) {
    throw new OAuthError(
      'invalid_client',
      'Clients of this server are public: send client_id in the body and no secret',
    );
  }
  const clientId = form.get('client_id');
  if (clientId === undefined || clientId === '') {
    throw new OAuthError('invalid_client', 'client_id is required');
  }
  return clientId;
}

/**
 * `POST /oauth/token` (authorization code with PKCE, refresh token), `POST /oauth/register`
 * (RFC 7591, rate-limited per client address) and `POST /oauth/revoke` (RFC 7009). Every error
 * answers in RFC 6749's shape.
 */
export function mountOAuthEndpoints(deps: EndpointDeps): void {
  const { app, logger } = deps;
  // A wrong method answers in RFC 6749's shape too (OPTIONS stays CORS's).
  app.on(
    ['GET', 'HEAD', 'PUT', 'PATCH', 'DELETE'],
    [TOKEN_PATH, REGISTER_PATH, REVOKE_PATH],
    oauthEndpoint(logger, () => {
      throw new OAuthError('invalid_request', 'Use POST', 405, { Allow: 'POST' });
    }),
  );
  app.post(
    TOKEN_PATH,
    oauthEndpoint(logger, (c) => issueToken(deps, c)),
  );
  app.post(
    REGISTER_PATH,
    oauthEndpoint(logger, (c) => registerClient(deps, c)),
  );
  app.post(
    REVOKE_PATH,
    oauthEndpoint(logger, (c) => revoke(deps, c)),
  );
}

/** `POST /oauth/token`: tokens for an authorization code or a refresh token. */
async function issueToken(deps: EndpointDeps, c: Context): Promise<Response> {
  const { db } = deps.services.database;
  const lifetimes: Lifetimes = {
    accessTokenSeconds: deps.settings.accessTokenSeconds,
    refreshTokenDays: deps.settings.refreshTokenDays,
  };
  const form = await readTokenForm(c);
  const clientId = clientIdOf(form);
  const client = await deps.clients.find(clientId);
  const grantType = form.get('grant_type');
  let answer: unknown;
  if (grantType === 'authorization_code') {
    const code = form.get('code');
    if (code === undefined) throw new OAuthError('invalid_request', 'code is required');
    answer = await redeemCode(
      db,
      {
        code,
        clientId,
        clientName: client.name,
        redirectUri: form.get('redirect_uri'),
        verifier: form.get('code_verifier'),
        resource: form.get('resource'),
      },
      lifetimes,
    );
  } else if (grantType === 'refresh_token') {
    const refreshToken = form.get('refresh_token');
    if (refreshToken === undefined) {
      throw new OAuthError('invalid_request', 'refresh_token is required');
    }
    answer = await refreshGrant(
      db,
      { refreshToken, clientId, resource: form.get('resource'), scope: form.get('scope') },
      lifetimes,
    );
  } else {
    throw new OAuthError(
      'unsupported_grant_type',
      'grant_type must be authorization_code or refresh_token',
    );
  }
  return c.json(answer, 200, { 'Cache-Control': 'no-store', Pragma: 'no-cache' });
}

/** `POST /oauth/register`: a new public client (RFC 7591), a few per client address an hour. */
async function registerClient(deps: EndpointDeps, c: Context): Promise<Response> {
  const address = clientAddress(c, deps.services.auth.trustedProxies);
  if (address !== undefined) {
    const decision = await consumeRateLimit(
      deps.services.database.db,
      `${address}|oauth-register`,
      REGISTRATION_LIMIT,
    );
    if (!decision.allowed) {
      throw new OAuthError(
        'temporarily_unavailable',
        `Too many registrations from your address; retry in ${decision.retryAfter}s`,
        429,
        { 'Retry-After': String(decision.retryAfter) },
      );
    }
  }
  const registration = await deps.clients.register(await readMetadata(c));
  return c.json(registration, 201, { 'Cache-Control': 'no-store', Pragma: 'no-cache' });
}

/** The client metadata of a registration: a JSON body, read but not yet checked. */
async function readMetadata(c: Context): Promise<unknown> {
  const type = c.req.header('content-type') ?? '';
  if (!type.toLowerCase().startsWith('application/json')) {
    throw new OAuthError('invalid_client_metadata', 'Send the metadata as application/json');
  }
  try {
    return JSON.parse(await readBodyText(c));
  } catch (error) {
    if (error instanceof SyntaxError) {
      throw new OAuthError('invalid_client_metadata', 'The body is not JSON');
    }
    throw error;
  }
}

/** `POST /oauth/revoke` (RFC 7009): the client's own token, by value. */
async function revoke(deps: EndpointDeps, c: Context): Promise<Response> {
  const form = await readTokenForm(c);
  const clientId = clientIdOf(form);
  const token = form.get('token');
  if (token === undefined) throw new OAuthError('invalid_request', 'token is required');
  await revokeToken(deps.services.database.db, token, clientId);
  return c.body(null, 200, { 'Cache-Control': 'no-store' });
}
