import { sql } from 'kysely';
import type { GatewayDatabase } from '../db/index.js';
import { NotifyListener } from '../db/notify-listener.js';
import type { ServerLogger } from '../http/logger.js';

/** The PostgreSQL channel decisions are announced on; the payload is the approval id. */
export const APPROVALS_CHANNEL = 'gateway_approvals';

/**
 * Tells every gateway instance that an approval was decided: `NOTIFY` on PostgreSQL. On SQLite
 * (one host, one file) there is nobody to tell: waiters there poll the table.
 */
export async function announceDecision(database: GatewayDatabase, id: string): Promise<void> {
  if (database.dialect !== 'postgres') return;
  await sql`select pg_notify(${APPROVALS_CHANNEL}, ${id})`.execute(database.db);
}

/**
 * Listens for decisions made on any instance (`LISTEN` on a dedicated PostgreSQL connection, see
 * `NotifyListener`). It connects on first use and, after losing its server, again by itself with
 * a backoff; waiters keep a slow poll meanwhile, so a notification lost in a reconnect only delays a
 * wake-up.
 */
export class DecisionListener {
  readonly #listener: NotifyListener;

  constructor(options: { url: string; logger: ServerLogger; onDecided: (id: string) => void }) {
    this.#listener = new NotifyListener({
      url: options.url,
      channel: APPROVALS_CHANNEL,
      logger: options.logger,
      onPayload: options.onDecided,
    });
  }

  /** Connects and listens, unless already listening. Never throws: failures are logged. */
  ensure(): Promise<void> {
    return this.#listener.ensure();
  }

  /** Stops listening and closes the connection. */
  close(): Promise<void> {
    return this.#listener.close();
  }
}
