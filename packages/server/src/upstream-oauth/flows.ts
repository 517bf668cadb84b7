import { createHash } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import type { DatabaseSchema } from '../db/index.js';
import { ConnectError, type ConnectReturn } from './connect-error.js';

/** How long a started connect may take before its `state` is refused. */
const FLOW_TTL_MS = 10 * 60 * 1000;

/** A started connect, as stored for its callback. */
export type FlowRow = Selectable<DatabaseSchema['upstream_oauth_flows']>;

/**
 * Keeps a started connect for its callback, `state` hashed and the PKCE verifier as given
 * (encrypted); the connects that outlived {@link FLOW_TTL_MS} go first.
 */
export async function keepFlow(
  db: Kysely<DatabaseSchema>,
  flow: {
    state: string;
    userId: string;
    sourceId: string;
    issuer: string;
    encryptedVerifier: string;
    resource: string;
    returnTo: ConnectReturn;
  },
): Promise<void> {
  const now = Date.now();
  await db
    .deleteFrom('upstream_oauth_flows')
    .where('expires_at', '<', new Date(now).toISOString())
    .execute();
  await db
    .insertInto('upstream_oauth_flows')
    .values({
      state_hash: hashOf(flow.state),
      user_id: flow.userId,
      source_id: flow.sourceId,
      issuer: flow.issuer,
      encrypted_verifier: flow.encryptedVerifier,
      resource: flow.resource,
      return_to: JSON.stringify(flow.returnTo),
      expires_at: new Date(now + FLOW_TTL_MS).toISOString(),
    })
    .execute();
}

/**
 * Takes the connect of `state`, once: a replay finds nothing.
 *
 * @throws ConnectError `state_mismatch` for no state, an unknown or used one, or one too old.
 */
export async function takeFlow(
  db: Kysely<DatabaseSchema>,
  state: string | undefined,
): Promise<FlowRow> {
  if (state === undefined || state.length > 500) {
    throw new ConnectError('state_mismatch', 'This connect answer carries no valid state.');
  }
  const row = await db
    .deleteFrom('upstream_oauth_flows')
    .where('state_hash', '=', hashOf(state))
    .returningAll()
    .executeTakeFirst();
  if (row === undefined || row.expires_at < new Date().toISOString()) {
    throw new ConnectError(
      'state_mismatch',
      'This connect answer is unknown, was already used or took too long, so it was refused. Start connecting again.',
    );
  }
  return row;
}

function hashOf(state: string): string {
  return createHash('sha256').update(state).digest('hex');
}
