import type { Kysely } from 'kysely';
import type { DatabaseSchema } from '../db/index.js';
import type { UpstreamAuth } from './target.js';

/** `auth` of an upstream whose users each connect their own account at it. */
export type OAuthUpstreamAuth = Extract<UpstreamAuth, { kind: 'oauth' }>;

/** What a user's token lookup for an oauth upstream found. */
export type UpstreamTokenLookup =
  | { ok: true; token: string; connectionId: string }
  | { ok: false; reason: 'none' | 'expired' | 'refused' | 'refresh_failed' };

/**
 * What upstream sources need of per-user OAuth (`upstream-oauth/` implements it; this folder
 * does not depend on that one).
 */
export interface UpstreamOAuthHooks {
  /**
   * Checks at registration that the upstream's authorization can be discovered (no user token is
   * needed for that).
   *
   * @throws Refusal 400 when its metadata breaks a rule, 503 when it cannot be reached.
   */
  check(url: string, auth: OAuthUpstreamAuth): Promise<void>;
  /** Stores an admin's pre-registered client (its secret encrypted) in the registration's transaction. */
  storeClient(
    db: Kysely<DatabaseSchema>,
    sourceId: string,
    client: { clientId: string; clientSecret?: string | undefined },
  ): Promise<void>;
  /** `userId`'s own token for the source, refreshed when due. */
  accessToken(userId: string, sourceId: string): Promise<UpstreamTokenLookup>;
  /** The upstream refused the token: the user must connect again. */
  markRefused(userId: string, sourceId: string, connectionId: string): Promise<void>;
  /**
   * The upstream said the token lacks scope (a 403 whose `WWW-Authenticate` is `challenge`): the
   * user's next connect asks for the scopes it names as well (step-up authorization).
   */
  wantScope(userId: string, sourceId: string, challenge: string): Promise<void>;
  /**
   * A token to list the source's tools with when no user is connecting (the scheduled refresh,
   * the upstream's `list_changed`): a connected user's, undefined when none works.
   */
  listingToken(sourceId: string): Promise<string | undefined>;
}

/**
 * The connection `tool_id` holding a user's tokens for an oauth source: `mcp.<source id>`, apart
 * from every plugin provider id (those have no dot); for a plugin's own OAuth provider (key
 * `@<provider id>`, see {@link pluginOAuthKey}) the provider id.
 */
export function oauthToolId(sourceId: string): string {
  return sourceId.startsWith(PLUGIN_OAUTH_PREFIX)
    ? sourceId.slice(PLUGIN_OAUTH_PREFIX.length)
    : `mcp.${sourceId}`;
}

/** What starts the upstream-OAuth key of a plugin's own OAuth provider (no source id has it). */
export const PLUGIN_OAUTH_PREFIX = '@';

/**
 * The key a plugin's own OAuth provider `providerId` has in the upstream OAuth machinery (flows,
 * clients, tokens): `@<provider id>`. Its tokens are the user's connection of tool id
 * `providerId` itself ({@link oauthToolId}), as every plugin provider's credential is.
 */
export function pluginOAuthKey(providerId: string): string {
  return `${PLUGIN_OAUTH_PREFIX}${providerId}`;
}
