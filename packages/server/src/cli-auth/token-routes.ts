import { clientAddress } from '../auth/client-ip.js';
import type { GatewayAuth } from '../auth/create-auth.js';
import { consumeRateLimit } from '../auth/rate-limit.js';
import type { GatewayDatabase } from '../db/database.js';
import { deletedSchema } from '../http/common-schemas.js';
import { HttpError } from '../http/errors.js';
import { idParams, requireUuid } from '../http/id-param.js';
import type { ServerLogger } from '../http/logger.js';
import { type AnyRoute, defineRoute, noQuery } from '../http/route.js';
import { issueCliToken, listCliTokens, revokeCliToken } from '../identity/cli-token-store.js';
import type { AuthenticatedPrincipal } from '../identity/index.js';
import { redeemCode } from './codes.js';
import { loopbackRedirect } from './loopback.js';
import { verifyPkce } from './pkce.js';
import { cliTokenBody, cliTokenIssuedSchema, cliTokenListSchema } from './schemas.js';

const refused = () =>
  new HttpError(
    'bad_request',
    'The code is invalid, expired or already used, or does not match this verifier and redirect URI; run `gateway login` again',
  );

/** What the CLI token routes read of the gateway's services. */
export type CliTokenDeps = { database: GatewayDatabase; auth: GatewayAuth; logger: ServerLogger };

/** Settings of {@link cliTokenRoutes}. */
export interface CliTokenSettings {
  /** How many days an issued token works (`GATEWAY_CLI_TOKEN_DAYS`). */
  tokenDays: number;
}

function requireUser(principal: AuthenticatedPrincipal): string {
  if (principal.kind === 'user') return principal.userId;
  throw new HttpError('forbidden', 'CLI tokens belong to a user; sign in as one');
}

/**
 * The server side of `gateway login`: `POST /api/cli/token` exchanges the one-time code of
 * `/cli/authorize` (with its PKCE verifier) for a `gw_cli_` token that expires
 * `settings.tokenDays` later; `GET /api/cli/tokens` lists the caller's live tokens with their
 * last use and expiry; `DELETE /api/cli/tokens/:id` revokes one.
 *
 * @example
 * routes.push(...cliTokenRoutes(services, { tokenDays: 90 }));
 */
export function cliTokenRoutes(services: CliTokenDeps, settings: CliTokenSettings): AnyRoute[] {
  return [
    exchangeCodeRoute(services, settings),
    listTokensRoute(services.database),
    revokeTokenRoute(services.database),
  ];
}

/** `POST /api/cli/token`: a sign-in code and its PKCE verifier for a `gw_cli_` token. */
function exchangeCodeRoute(services: CliTokenDeps, settings: CliTokenSettings) {
  const { db } = services.database;
  return defineRoute({
    method: 'post',
    path: '/api/cli/token',
    summary: 'Exchange a CLI sign-in code for a CLI token',
    tag: 'CLI',
    access: 'public',
    body: cliTokenBody,
    responses: {
      200: { description: 'The token, shown this once', schema: cliTokenIssuedSchema },
      400: { description: 'Unknown, used or expired code, wrong verifier or redirect URI' },
      429: { description: 'Too many exchanges from this address; see Retry-After' },
    },
    async handler(c, { body }) {
      const ip = clientAddress(c, services.auth.trustedProxies, services.logger) ?? 'unknown';
      const decision = await consumeRateLimit(
        db,
        `${ip}|/api/cli/token`,
        services.auth.rateLimits.cliToken,
      );
      if (!decision.allowed) {
        c.header('Retry-After', String(decision.retryAfter));
        throw new HttpError(
          'rate_limited',
          `Too many token requests; retry in ${decision.retryAfter} s`,
        );
      }
      if (!loopbackRedirect(body.redirect_uri)) {
        throw new HttpError(
          'bad_request',
          'redirect_uri must be http://127.0.0.1:<port>/callback or http://localhost:<port>/callback',
        );
      }
      // Redeemed first: a wrong verifier still burns the code, so it cannot be guessed at.
      const grant = await redeemCode(db, body.code);
      if (
        !grant ||
        grant.redirectUri !== body.redirect_uri ||
        !verifyPkce(body.code_verifier, grant.codeChallenge)
      ) {
        throw refused();
      }
      const issued = await issueCliToken(db, grant.userId, grant.clientName, {
        days: settings.tokenDays,
      });
      services.logger.info('CLI token issued', {
        userId: grant.userId,
        tokenId: issued.id,
        expiresAt: issued.expiresAt,
      });
      return c.json(
        {
          token: issued.token,
          userId: grant.userId,
          id: issued.id,
          expiresAt: issued.expiresAt,
        },
        200,
        { 'Cache-Control': 'no-store' },
      );
    },
  });
}

/** `GET /api/cli/tokens`: the caller's live tokens, masked. */
function listTokensRoute({ db }: GatewayDatabase) {
  return defineRoute({
    method: 'get',
    path: '/api/cli/tokens',
    summary: "List the caller's CLI tokens",
    tag: 'CLI',
    access: 'user',
    query: noQuery,
    responses: {
      200: {
        description: 'Live tokens (not revoked, not expired), masked, newest first',
        schema: cliTokenListSchema,
      },
      401: { description: 'No credentials' },
      403: { description: 'Not a user (a service account or the service secret)' },
    },
    async handler(c, { principal }) {
      return c.json({ tokens: await listCliTokens(db, requireUser(principal)) });
    },
  });
}

/** `DELETE /api/cli/tokens/:id`: revokes one of the caller's tokens. */
function revokeTokenRoute({ db }: GatewayDatabase) {
  return defineRoute({
    method: 'delete',
    path: '/api/cli/tokens/:id',
    summary: 'Revoke one of the caller’s CLI tokens',
    tag: 'CLI',
    access: 'user',
    params: idParams,
    query: noQuery,
    responses: {
      200: { description: 'Revoked; it stops working at once', schema: deletedSchema },
      401: { description: 'No credentials' },
      403: { description: 'Not a user' },
      404: { description: "No such token among the caller's" },
    },
    async handler(c, { params, principal }) {
      const userId = requireUser(principal);
      const id = requireUuid(params.id, 'CLI token');
      if (!(await revokeCliToken(db, userId, id)))
        throw new HttpError('not_found', `No CLI token ${id}`);
      return c.json({ deleted: [id] });
    },
  });
}
