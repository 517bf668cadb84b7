import type { Context } from 'hono';
import { cliTokenExpired } from '../cli-auth/token-expiry.js';
import { Refusal } from '../errors/refusal.js';
import { incomingOf } from '../http/incoming.js';
import { safeEqual } from '../secrets/index.js';
import type { FailedCredentialLimit } from './credential-limit.js';
import {
  ANONYMOUS,
  isAdminRole,
  type Principal,
  type ServiceAccountPrincipal,
  type ToolPrincipal,
  TRUSTED,
  type UserPrincipal,
  userPrincipal,
} from './principal.js';
import type { TokenLookup, TokenOwner, TokenRepository } from './token-repository.js';

/** Finds the signed-in user of a request from its session cookie (better-auth), if any. */
export type SessionResolver = (headers: Headers) => Promise<{ userId: string } | null>;

/**
 * Where a request arrives, which decides the credentials it may carry:
 * - `api`: the JSON API: the service secret, a `gw_cli_` token, a `gw_sa_` key, else the session
 *   cookie;
 * - `mcp`: the MCP endpoint: a `gw_mcp_` endpoint token or a `gw_sa_` key, in the header or the
 *   path, or a `gw_oat_` OAuth access token in the header;
 * - `page`: the web app and the CLI pages: the session cookie alone;
 * - `metrics`: `GET /metrics`: `GATEWAY_METRICS_TOKEN`, else as `api`.
 */
export type Surface = 'api' | 'mcp' | 'page' | 'metrics';

/**
 * A 401: no credential where one is needed, or one that matches nothing; its challenge says
 * `invalid_token` when a credential was sent.
 *
 * @example
 * throw unauthenticated('The bearer token is invalid, expired or revoked', true);
 */
function unauthenticated(message: string, invalidToken: boolean): Refusal {
  return new Refusal('unauthorized', message, undefined, {
    challenge: invalidToken
      ? `Bearer realm="gateway", error="invalid_token", error_description="${message.replaceAll('"', "'")}"`
      : 'Bearer realm="gateway"',
  });
}

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** What {@link createAuthenticator} reads: the stores, the secrets and the limit. */
interface AuthenticatorOptions {
  tokens: TokenRepository;
  serviceApiSecret: string | undefined;
  /** `GATEWAY_METRICS_TOKEN`: opens `GET /metrics` (the `metrics` surface) and nothing else. */
  metricsToken?: string | undefined;
  sessions: SessionResolver;
  /** The role that applies to a user; undefined when there is no such user. */
  roleOf: (userId: string) => Promise<string | undefined>;
  limit: FailedCredentialLimit;
  /**
   * Gateway's own authorization server (`GATEWAY_MCP_OAUTH`), when on: `gw_oat_` access tokens
   * are accepted at `/mcp` for this resource only and only with `scope` among their scopes (else
   * 403 `insufficient_scope`), and a 401 there names the resource metadata.
   */
  mcpOAuth?: McpOAuth;
}

/** Gateway's own authorization server, as `/mcp` sees it. */
interface McpOAuth {
  resource(): string;
  /** The scope an MCP request needs. */
  scope: string;
  challenge(error?: { error: 'invalid_token' | 'insufficient_scope'; description: string }): string;
}

/**
 * Builds the one `authenticate()` of the gateway: every surface asks it who a request acts for,
 * and gets a {@link Principal}. A credential that matches nothing is a 401 (429 past the
 * failed-credential limit), never a silent fall-back to anonymous.
 *
 * @example
 * const authenticate = createAuthenticator({ tokens, serviceApiSecret, sessions, roleOf, limit });
 * const principal = await authenticate(c, 'api');
 */
export function createAuthenticator(options: AuthenticatorOptions) {
  function authenticate(c: Context, surface: 'mcp', pathToken?: string): Promise<ToolPrincipal>;
  function authenticate(c: Context, surface: 'api' | 'page' | 'metrics'): Promise<Principal>;
  function authenticate(c: Context, surface: Surface, pathToken?: string): Promise<Principal> {
    if (surface === 'mcp') return mcpPrincipal(options, c, pathToken);
    if (surface === 'metrics') return metricsPrincipal(options, c);
    if (surface === 'api') return apiPrincipal(options, c);
    return sessionPrincipal(options, c);
  }
  return authenticate;
}

/** A 401 from `/mcp`: with the resource metadata's address when OAuth is on. */
function mcpUnauthenticated(
  mcpOAuth: McpOAuth | undefined,
  message: string,
  invalidToken: boolean,
): Refusal {
  return mcpOAuth === undefined
    ? unauthenticated(message, invalidToken)
    : new Refusal('unauthorized', message, undefined, {
        challenge: mcpOAuth.challenge(
          invalidToken ? { error: 'invalid_token', description: message } : undefined,
        ),
      });
}

/** Refuses a credential that matched nothing, counting it against the failed-credential limit. */
async function refuse(
  limit: FailedCredentialLimit,
  c: Context,
  message: string | Refusal,
): Promise<never> {
  const error = typeof message === 'string' ? unauthenticated(message, true) : message;
  throw await limit.refuse(c, error);
}

/** An expired CLI token says so, and what to do; anything else says as little as it can. */
function tokenRefusal(lookup: TokenLookup & { found: false }, token: string) {
  return lookup.reason === 'expired' &&
    lookup.expiredAt !== undefined &&
    token.startsWith('gw_cli_')
    ? cliTokenExpired(lookup.expiredAt)
    : 'The bearer token is invalid, expired or revoked';
}

function serviceAccountPrincipal(
  owner: TokenOwner & { kind: 'service_account' },
): ServiceAccountPrincipal {
  return {
    kind: 'service_account',
    serviceAccountId: owner.serviceAccountId,
    roleId: owner.roleId,
  };
}

async function sessionPrincipal(options: AuthenticatorOptions, c: Context): Promise<Principal> {
  const session = await options.sessions(c.req.raw.headers);
  if (session === null) return ANONYMOUS;
  const roleId = await options.roleOf(session.userId);
  if (roleId === undefined) return ANONYMOUS;
  return userPrincipal({ userId: session.userId, roleId, via: 'session' });
}

async function apiPrincipal(options: AuthenticatorOptions, c: Context): Promise<Principal> {
  const { serviceApiSecret, limit } = options;
  const authorization = c.req.header('authorization');
  if (authorization === undefined) return sessionPrincipal(options, c);
  const token = BEARER.exec(authorization)?.[1];
  if (token === undefined) {
    throw unauthenticated('Send the credential as Authorization: Bearer <token>', false);
  }
  if (serviceApiSecret !== undefined && safeEqual(token, serviceApiSecret)) return TRUSTED;
  if (token.startsWith('gw_mcp_') || token.startsWith('gw_oat_')) {
    return refuse(limit, c, 'An MCP endpoint token works only at /mcp; the API takes a CLI token');
  }
  const lookup = await options.tokens.find(token);
  if (!lookup.found) return refuse(limit, c, tokenRefusal(lookup, token));
  const { owner } = lookup;
  if (owner.kind === 'service_account') return serviceAccountPrincipal(owner);
  if (owner.kind !== 'cli') {
    return refuse(limit, c, 'The bearer token is invalid, expired or revoked');
  }
  return userPrincipal({
    userId: owner.userId,
    roleId: owner.roleId,
    via: 'cli_token',
    tokenId: owner.tokenId,
    expiresAt: owner.expiresAt,
  });
}

/** The metrics token stands for a trusted scraper here only; anything else as at the API. */
function metricsPrincipal(options: AuthenticatorOptions, c: Context): Promise<Principal> {
  const { metricsToken } = options;
  const token = BEARER.exec(c.req.header('authorization') ?? '')?.[1];
  if (metricsToken !== undefined && token !== undefined && safeEqual(token, metricsToken)) {
    return Promise.resolve(TRUSTED);
  }
  return apiPrincipal(options, c);
}

/** The token of an MCP request, from the path, else the `Authorization` header; a 401 without. */
function mcpToken(c: Context, pathToken: string | undefined, mcpOAuth: McpOAuth | undefined) {
  let token = pathToken;
  if (token === undefined) {
    const authorization = c.req.header('authorization');
    token = authorization === undefined ? undefined : BEARER.exec(authorization)?.[1];
  }
  if (token === undefined || token === '') {
    throw mcpUnauthenticated(
      mcpOAuth,
      mcpOAuth === undefined
        ? 'Send your MCP endpoint token as Authorization: Bearer <token>, or use the URL {base_url}/mcp/<token>'
        : 'Sign in (OAuth), or send your MCP endpoint token as Authorization: Bearer <token>, or use the URL {base_url}/mcp/<token>',
      false,
    );
  }
  return token;
}

async function mcpPrincipal(
  options: AuthenticatorOptions,
  c: Context,
  pathToken: string | undefined,
): Promise<ToolPrincipal> {
  const { mcpOAuth } = options;
  const token = mcpToken(c, pathToken, mcpOAuth);
  const refuseMcp = (message: string) =>
    refuse(options.limit, c, mcpUnauthenticated(mcpOAuth, message, true));
  if (token.startsWith('gw_cli_')) {
    return refuseMcp('A CLI token does not work at /mcp; use an MCP endpoint token');
  }
  if (token.startsWith('gw_oat_') && (mcpOAuth === undefined || pathToken !== undefined)) {
    return refuseMcp(
      mcpOAuth === undefined
        ? 'OAuth sign-in is turned off on this gateway'
        : 'An OAuth access token goes in the Authorization header, never in the URL',
    );
  }
  // A 2025 session's request: on PostgreSQL its session's row is read in the token's statement.
  // A kept token's owner comes back at once: no turn for it on every call.
  const finding = options.tokens.findNow(
    token,
    c.req.header('mcp-session-id'),
    incomingOf(c)?.socket,
  );
  const lookup = finding instanceof Promise ? await finding : finding;
  if (!lookup.found) {
    return refuseMcp(
      lookup.reason === 'expired' && token.startsWith('gw_oat_')
        ? 'The access token expired; refresh it'
        : 'The MCP token is unknown, deleted or revoked',
    );
  }
  const { owner } = lookup;
  if (lookup.session !== undefined) c.set('sessionState', lookup.session);
  if (owner.kind === 'mcp') {
    if (owner.oauth !== undefined && owner.oauth.resource !== mcpOAuth?.resource()) {
      return refuseMcp('The access token was issued for another resource');
    }
    return endpointPrincipal(owner, mcpOAuth);
  }
  if (owner.kind === 'service_account') return serviceAccountPrincipal(owner);
  return refuseMcp('The MCP token is unknown, deleted or revoked');
}

/** The user an endpoint token acts for; an OAuth access token needs the MCP scope. */
function endpointPrincipal(
  owner: TokenOwner & { kind: 'mcp' },
  mcpOAuth: McpOAuth | undefined,
): UserPrincipal {
  if (owner.oauth !== undefined && mcpOAuth !== undefined) {
    // A valid token without the scope is no failed credential: a 403, not counted (RFC 6750).
    if (!owner.oauth.scope.split(' ').includes(mcpOAuth.scope)) {
      const message = `The access token lacks the ${mcpOAuth.scope} scope; sign in again`;
      throw new Refusal('forbidden', message, undefined, {
        challenge: mcpOAuth.challenge({ error: 'insufficient_scope', description: message }),
      });
    }
  }
  // Written out, not through `userPrincipal`: its spreads cost every MCP call ~2 k instructions
  // (issue 37). The same fields.
  const principal: UserPrincipal = {
    kind: 'user',
    userId: owner.userId,
    roleId: owner.roleId,
    via: 'mcp_token',
    endpointId: owner.endpointId,
    roleRow: owner.role,
    endpointRow: owner.scope,
    isAdmin: isAdminRole(owner.roleId),
  };
  return owner.oauth === undefined ? principal : { ...principal, clientId: owner.oauth.clientId };
}

/** The gateway's `authenticate()`. */
export type Authenticate = ReturnType<typeof createAuthenticator>;
