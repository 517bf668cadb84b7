import type { Kysely } from 'kysely';
import type { DatabaseSchema } from '../db/index.js';
import type { SecretBox } from '../secrets/index.js';

/** What rekey did to the OAuth clients kept in `upstream_oauth_clients`. */
export interface UpstreamClientRekey {
  rewritten: number;
  /** Under the current secret already, or a public client with no secret. */
  current: number;
  /** `<source id> at <issuer>` (or `<source id>`, before its first connect) per unreadable row. */
  unreadable: string[];
}

/**
 * Rewrites the client secrets in `upstream_oauth_clients` readable only with a previous auth
 * secret under the current one (for `gateway-server rekey`): the clients registered at upstreams'
 * authorization servers (RFC 7591 answers, which cannot be asked for again), admins'
 * pre-registered ones, and the copies of plugin providers' clients under `@<id>`. Without it,
 * removing the previous secret would break every refresh with these clients. A row changed since
 * it was read is left to the change (a connect wrote it under the current secret).
 *
 * @example
 * const { rewritten, unreadable } = await rekeyUpstreamClients(db, secrets);
 */
export async function rekeyUpstreamClients(
  db: Kysely<DatabaseSchema>,
  secrets: Pick<SecretBox, 'open' | 'encrypt'>,
): Promise<UpstreamClientRekey> {
  const report: UpstreamClientRekey = { rewritten: 0, current: 0, unreadable: [] };
  // Few rows (one per source and authorization server), so one pass without batches.
  const rows = await db
    .selectFrom('upstream_oauth_clients')
    .select(['source_id', 'issuer', 'encrypted_client_secret'])
    .orderBy('source_id')
    .orderBy('issuer')
    .execute();
  for (const row of rows) {
    const stored = row.encrypted_client_secret;
    if (stored === null) {
      report.current += 1;
      continue;
    }
    let opened: ReturnType<SecretBox['open']>;
    try {
      opened = secrets.open(stored);
    } catch {
      report.unreadable.push(
        row.issuer === '' ? row.source_id : `${row.source_id} at ${row.issuer}`,
      );
      continue;
    }
    if (opened.current) {
      report.current += 1;
      continue;
    }
    const result = await db
      .updateTable('upstream_oauth_clients')
      .set({ encrypted_client_secret: secrets.encrypt(opened.plain) })
      .where('source_id', '=', row.source_id)
      .where('issuer', '=', row.issuer)
      .where('encrypted_client_secret', '=', stored)
      .executeTakeFirst();
    if (result.numUpdatedRows > 0n) report.rewritten += 1;
    else report.current += 1;
  }
  return report;
}
