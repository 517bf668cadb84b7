import { sql } from 'kysely';
import type pg from 'pg';
import type { GatewayDatabase } from '../db/index.js';
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
 * A dedicated PostgreSQL connection that `LISTEN`s for decisions made on any instance. It
 * connects on first use and reconnects on the next `ensure()` after losing its server; waiters
 * keep a slow poll meanwhile, so a notification lost in a reconnect only delays a wake-up.
 */
export class DecisionListener {
  readonly #url: string;
  readonly #logger: ServerLogger;
  readonly #onDecided: (id: string) => void;
  #client: pg.Client | undefined;
  #connecting: Promise<void> | undefined;
  #closed = false;

  constructor(options: { url: string; logger: ServerLogger; onDecided: (id: string) => void }) {
    this.#url = options.url;
    this.#logger = options.logger;
    this.#onDecided = options.onDecided;
  }

  /** Connects and listens, unless already listening. Never throws: failures are logged. */
  ensure(): Promise<void> {
    if (this.#closed || this.#client !== undefined) return Promise.resolve();
    this.#connecting ??= this.#connect().finally(() => {
      this.#connecting = undefined;
    });
    return this.#connecting;
  }

  async #connect(): Promise<void> {
    // Loaded here: a gateway on SQLite never needs the PostgreSQL driver.
    const { default: driver } = await import('pg');
    const client = new driver.Client({ connectionString: this.#url });
    client.on('notification', (message) => {
      if (message.channel === APPROVALS_CHANNEL && message.payload)
        this.#onDecided(message.payload);
    });
    client.on('error', (error) => {
      this.#logger.warn('approval listener lost its connection', { error: error.message });
      if (this.#client === client) this.#client = undefined;
      void client.end().catch(() => {});
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${APPROVALS_CHANNEL}`);
      if (this.#closed) {
        await client.end();
        return;
      }
      this.#client = client;
    } catch (error) {
      this.#logger.warn('approval listener could not connect; polling instead', {
        error: error instanceof Error ? error.message : String(error),
      });
      await client.end().catch(() => {});
    }
  }

  /** Stops listening and closes the connection. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#connecting;
    const client = this.#client;
    this.#client = undefined;
    await client?.end().catch(() => {});
  }
}
