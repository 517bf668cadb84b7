import type { Env } from '../config/env.js';
import { openGateway } from '../gateway.js';
import type { LogSink } from '../http/logger.js';
import { resolveAuthSecrets } from '../secrets/index.js';
import { REKEY_TABLES, type RekeyReport, rekey } from './rekey.js';

/** Where `gateway-server rekey` reads its settings and writes its lines. */
export interface RunRekeyOptions {
  env: Env;
  /** The report: one line per kind of stored secret, then the outcome. */
  out: (line: string) => void;
  /** Progress and the gateway's own log lines. */
  log: LogSink;
  batchSize?: number;
}

/** Raised when rows remain that no configured auth secret opens; its message names them. */
export class UnreadableSecretsError extends Error {
  constructor(report: RekeyReport) {
    const rows = report.unreadable.map(
      (row) => `${row.table} ${row.id}${row.column === undefined ? '' : ` (${row.column})`}`,
    );
    super(
      `${rows.length} stored secret${rows.length === 1 ? '' : 's'} cannot be decrypted with AUTH_SECRET or GATEWAY_PREVIOUS_AUTH_SECRETS: ${rows.join(', ')}; add the auth secret they were stored under to GATEWAY_PREVIOUS_AUTH_SECRETS and run rekey again, or have their owners enter them again; keep the previous secrets until then`,
    );
    this.name = 'UnreadableSecretsError';
  }
}

/**
 * `gateway-server rekey`: opens the gateway's database as the server would (same settings, same
 * migrations), rewrites every stored secret under the current `AUTH_SECRET` (see {@link rekey}),
 * and prints what it changed per kind of stored secret, counts only, never a value.
 *
 * @throws UnreadableSecretsError naming the rows no configured auth secret opens (after rewriting
 * all the others); whatever `createGateway()` throws for bad settings.
 * @example
 * await runRekey({ env: process.env, out: (line) => console.log(line), log: stderrSink });
 */
export async function runRekey(options: RunRekeyOptions): Promise<RekeyReport> {
  const authSecrets = resolveAuthSecrets({}, options.env);
  const gateway = await openGateway({ env: options.env, logSink: options.log });
  let report: RekeyReport;
  try {
    let checked = 0;
    report = await rekey({
      database: gateway.services.database,
      secrets: gateway.services.secrets,
      authSecrets,
      ...(options.batchSize === undefined ? {} : { batchSize: options.batchSize }),
      afterBatch: (table, rows) => {
        checked += rows;
        gateway.services.logger.info('rekey batch committed', { table, rows, checked });
      },
    });
  } finally {
    await gateway.stop();
  }
  for (const table of REKEY_TABLES) {
    const counts = report.counts[table];
    options.out(
      `${table}: ${counts.rewritten} rewritten, ${counts.current} already under the current secret, ${counts.unreadable} unreadable`,
    );
  }
  if (report.unreadable.length > 0) throw new UnreadableSecretsError(report);
  options.out(
    'Every stored secret is under the current AUTH_SECRET: GATEWAY_PREVIOUS_AUTH_SECRETS may now be removed.',
  );
  return report;
}
