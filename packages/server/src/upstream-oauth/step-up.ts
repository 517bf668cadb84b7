import type { Kysely } from 'kysely';
import type { DatabaseSchema } from '../db/index.js';
import { oauthClient } from './sdk.js';

/** RFC 6749 §3.3 scope-token: printable ASCII but space, `"` and `\`. */
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]{1,100}$/;
/** The most scope tokens a user's connect asks for at one upstream. */
const MAX_SCOPES = 32;

/**
 * The scopes a `WWW-Authenticate` challenge of an upstream says the token lacks
 * (`error="insufficient_scope", scope="..."`, RFC 6750 §3.1), or none when it says otherwise or
 * names something that is not a scope. The challenge is the upstream's: nothing else is taken.
 */
export async function challengedScopes(challenge: string): Promise<string[]> {
  const { extractWWWAuthenticateParams } = await oauthClient();
  const params = extractWWWAuthenticateParams(
    new Response(null, { headers: { 'www-authenticate': challenge } }),
  );
  if (params.error !== 'insufficient_scope' || params.scope === undefined) return [];
  const scopes = params.scope.split(' ').filter((scope) => scope !== '');
  return scopes.length <= MAX_SCOPES && scopes.every((scope) => SCOPE_TOKEN.test(scope))
    ? scopes
    : [];
}

/** `first` joined with `more`, each scope once, in order; undefined when both are empty. */
export function joinScopes(
  first: string | undefined,
  more: string | undefined,
): string | undefined {
  const all = new Set([...(first ?? '').split(' '), ...(more ?? '').split(' ')]);
  all.delete('');
  return all.size === 0 ? undefined : [...all].slice(0, MAX_SCOPES).join(' ');
}

/**
 * Keeps `scopes` for `userId`'s next connect to `sourceId`, joined with those already kept
 * (step-up authorization: the MCP authorization spec asks for the union of what was asked before
 * and what the challenge names).
 */
export async function keepWantedScopes(
  db: Kysely<DatabaseSchema>,
  userId: string,
  sourceId: string,
  scopes: readonly string[],
): Promise<void> {
  const kept = await wantedScopes(db, userId, sourceId);
  const scope = joinScopes(kept, scopes.join(' ')) ?? '';
  const updatedAt = new Date().toISOString();
  await db
    .insertInto('upstream_oauth_scopes')
    .values({ user_id: userId, source_id: sourceId, scope, updated_at: updatedAt })
    .onConflict((oc) =>
      oc.columns(['user_id', 'source_id']).doUpdateSet({ scope, updated_at: updatedAt }),
    )
    .execute();
}

/** The scopes kept for `userId`'s next connect to `sourceId`, space-separated, if any. */
export async function wantedScopes(
  db: Kysely<DatabaseSchema>,
  userId: string,
  sourceId: string,
): Promise<string | undefined> {
  const row = await db
    .selectFrom('upstream_oauth_scopes')
    .select('scope')
    .where('user_id', '=', userId)
    .where('source_id', '=', sourceId)
    .executeTakeFirst();
  return row?.scope;
}

/** Every scope kept for `userId`'s next connects, by source id. */
export async function wantedScopesBySource(
  db: Kysely<DatabaseSchema>,
  userId: string,
): Promise<Map<string, string>> {
  const rows = await db
    .selectFrom('upstream_oauth_scopes')
    .select(['source_id', 'scope'])
    .where('user_id', '=', userId)
    .execute();
  return new Map(rows.map((row) => [row.source_id, row.scope]));
}
