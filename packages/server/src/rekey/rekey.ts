import { connectionSecretsAfter, replaceConnectionSecret } from '../connections/secret-store.js';
import type { GatewayDatabase } from '../db/index.js';
import { ProviderClientStore } from '../provider-clients/store.js';
import type { AuthSecrets, SecretBox } from '../secrets/index.js';
import { rekeyUpstreamClients } from '../upstream-oauth/rekey-clients.js';
import {
  ACCOUNT_TOKEN_COLUMNS,
  type AccountTokenColumn,
  accountTokensAfter,
  replaceAccountTokens,
} from '../vending/linked-accounts.js';
import { createOAuthTokenBox } from './oauth-tokens.js';

/** What rekey did to one kind of stored secret. */
export interface RekeyCounts {
  /** Rows rewritten under the current auth secret. */
  rewritten: number;
  /** Rows already under the current secret (or holding nothing encrypted), left alone. */
  current: number;
  /** Rows no configured secret opens, left alone. */
  unreadable: number;
}

/** The kinds of stored secret rekey rewrites, as its report names them, in report order. */
export const REKEY_TABLES = [
  'connections',
  'team connections',
  'oauth tokens',
  'provider clients',
  'upstream oauth clients',
] as const;

/** One of {@link REKEY_TABLES}. */
export type RekeyTable = (typeof REKEY_TABLES)[number];

/** A row rekey could not read: which, never its value. */
export interface UnreadableRow {
  table: RekeyTable;
  id: string;
  /** The column, for OAuth tokens (`accessToken`, `refreshToken`, `idToken`). */
  column?: string;
}

/** What {@link rekey} did. */
export interface RekeyReport {
  counts: Record<RekeyTable, RekeyCounts>;
  unreadable: UnreadableRow[];
}

/** Options of {@link rekey}. */
export interface RekeyOptions {
  database: GatewayDatabase;
  /** The box of connection secrets, with the previous secrets it opens. */
  secrets: SecretBox;
  /** The auth secrets, for better-auth's OAuth tokens. */
  authSecrets: AuthSecrets;
  /** Rows read and written per transaction. Default 100. */
  batchSize?: number;
  /** Called after each batch is committed (progress output). */
  afterBatch?: (table: 'connections' | 'account', rows: number) => void | Promise<void>;
}

/**
 * Rewrites every stored secret readable only with a previous auth secret under the current one:
 * connection and team connection secrets, the OAuth tokens better-auth keeps in `account`, the
 * client secrets admins gave plugins' OAuth providers (Admin → Providers), and the secrets of the
 * OAuth clients the gateway is at upstreams' and plugin providers' authorization servers.
 * Rows go in batches by id, one transaction each, and each write applies only if the row still
 * holds what was read, so a concurrent change by a running gateway (which encrypts under the
 * current secret anyway) wins. A row already under the current secret is left alone, so a run
 * that stopped midway is finished by running again, and a second run changes nothing. No row's
 * `updated_at` changes: it decides which connection serves.
 *
 * @example
 * const report = await rekey({ database, secrets, authSecrets: { current, previous } });
 * if (report.unreadable.length > 0) process.exitCode = 1;
 */
export async function rekey(options: RekeyOptions): Promise<RekeyReport> {
  const zero = (): RekeyCounts => ({ rewritten: 0, current: 0, unreadable: 0 });
  const report: RekeyReport = {
    counts: {
      connections: zero(),
      'team connections': zero(),
      'oauth tokens': zero(),
      'provider clients': zero(),
      'upstream oauth clients': zero(),
    },
    unreadable: [],
  };
  await rekeyConnections(options, report);
  await rekeyAccountTokens(options, report);
  await rekeyProviderClients(options, report);
  await rekeyOAuthClients(options, report);
  return report;
}

/** Connections' secrets (the user's and the team's), a batch per transaction. */
async function rekeyConnections(options: RekeyOptions, report: RekeyReport): Promise<void> {
  const batchSize = options.batchSize ?? 100;
  const { db } = options.database;
  for (let after = ''; ; ) {
    const rows = await connectionSecretsAfter(db, after, batchSize);
    if (rows.length === 0) break;
    await db.transaction().execute(async (trx) => {
      for (const row of rows) {
        const table = row.owner === 'team' ? 'team connections' : 'connections';
        const counts = report.counts[table];
        let opened: ReturnType<SecretBox['open']>;
        try {
          opened = options.secrets.open(row.encrypted_secret);
        } catch {
          counts.unreadable += 1;
          report.unreadable.push({ table, id: row.id });
          continue;
        }
        if (opened.current) {
          counts.current += 1;
          continue;
        }
        const encrypted = options.secrets.encrypt(opened.plain);
        // False: changed since it was read, so written under the current secret by a gateway.
        if (await replaceConnectionSecret(trx, row.id, encrypted, row.encrypted_secret)) {
          counts.rewritten += 1;
        } else {
          counts.current += 1;
        }
      }
    });
    after = rows[rows.length - 1]?.id ?? after;
    await options.afterBatch?.('connections', rows.length);
  }
}

/** Sign-in accounts' OAuth tokens, sealed with the auth secret, a batch per transaction. */
async function rekeyAccountTokens(options: RekeyOptions, report: RekeyReport): Promise<void> {
  const batchSize = options.batchSize ?? 100;
  const { db } = options.database;
  const tokens = createOAuthTokenBox(options.authSecrets);
  const counts = report.counts['oauth tokens'];
  for (let after = ''; ; ) {
    const rows = await accountTokensAfter(db, after, batchSize);
    if (rows.length === 0) break;
    await db.transaction().execute(async (trx) => {
      for (const row of rows) {
        const changes: Partial<Record<AccountTokenColumn, string>> = {};
        let unreadable = false;
        for (const column of ACCOUNT_TOKEN_COLUMNS) {
          const stored = row[column];
          if (stored === null || stored === '') continue;
          const opened = await tokens.open(stored);
          if (opened.state === 'stale') changes[column] = await tokens.seal(opened.plain);
          if (opened.state === 'unreadable') {
            unreadable = true;
            report.unreadable.push({ table: 'oauth tokens', id: row.id, column });
          }
        }
        if (unreadable) counts.unreadable += 1;
        const columns = Object.keys(changes) as AccountTokenColumn[];
        if (columns.length === 0) {
          if (!unreadable) counts.current += 1;
          continue;
        }
        if (await replaceAccountTokens(trx, row.id, changes, row)) {
          if (!unreadable) counts.rewritten += 1;
        } else if (!unreadable) {
          // Refreshed since it was read: better-auth wrote it under the current secret.
          counts.current += 1;
        }
      }
    });
    after = rows[rows.length - 1]?.id ?? after;
    await options.afterBatch?.('account', rows.length);
  }
}

/** Plugin providers' clients: few rows (one per provider), one pass by their owner. */
async function rekeyProviderClients(options: RekeyOptions, report: RekeyReport): Promise<void> {
  const clients = await new ProviderClientStore(options.database.db, options.secrets).rekey();
  report.counts['provider clients'] = {
    rewritten: clients.rewritten,
    current: clients.current,
    unreadable: clients.unreadable.length,
  };
  for (const id of clients.unreadable) report.unreadable.push({ table: 'provider clients', id });
}

/** The gateway's OAuth clients at upstreams and plugin providers, one pass by their owner. */
async function rekeyOAuthClients(options: RekeyOptions, report: RekeyReport): Promise<void> {
  const clients = await rekeyUpstreamClients(options.database.db, options.secrets);
  report.counts['upstream oauth clients'] = {
    rewritten: clients.rewritten,
    current: clients.current,
    unreadable: clients.unreadable.length,
  };
  for (const id of clients.unreadable) {
    report.unreadable.push({ table: 'upstream oauth clients', id });
  }
}
