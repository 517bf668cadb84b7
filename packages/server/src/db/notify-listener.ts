import type pg from 'pg';

/** Where {@link NotifyListener} reports a lost or failed connection. */
export interface NotifyListenerLogger {
  warn(message: string, fields?: Record<string, unknown>): void;
}

/**
 * A dedicated PostgreSQL connection that `LISTEN`s on one channel and hands each payload to
 * `onPayload`. It connects on first `ensure()` and again on the next `ensure()` after losing its
 * server; a notification sent while it was away is lost, which callers must tolerate.
 *
 * @example
 * const listener = new NotifyListener({ url, channel: 'gw_x', logger, onPayload: console.log });
 * await listener.ensure();
 */
export class NotifyListener {
  readonly #url: string;
  readonly #channel: string;
  readonly #logger: NotifyListenerLogger;
  readonly #onPayload: (payload: string) => void;
  #client: pg.Client | undefined;
  #connecting: Promise<void> | undefined;
  #closed = false;

  constructor(options: {
    url: string;
    /** A plain identifier (letters, digits, `_`): it is written into `LISTEN` as is. */
    channel: string;
    logger: NotifyListenerLogger;
    onPayload: (payload: string) => void;
  }) {
    if (!/^[a-z_][a-z0-9_]{0,62}$/.test(options.channel)) {
      throw new Error(`not a plain channel name: ${options.channel}`);
    }
    this.#url = options.url;
    this.#channel = options.channel;
    this.#logger = options.logger;
    this.#onPayload = options.onPayload;
  }

  /** Whether the connection is up and listening. */
  get listening(): boolean {
    return this.#client !== undefined;
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
    let client: pg.Client | undefined;
    try {
      // Loaded here: a gateway on SQLite never needs the PostgreSQL driver.
      const { default: driver } = await import('pg');
      // The driver parses the URL here and reads the files it names (`sslrootcert`, `sslcert`,
      // `sslkey`): a certificate removed or being replaced since the start throws. Callers run
      // `ensure()` in the background (the approvals' poll), where a rejection ends the process.
      client = this.#newClient(driver);
      await client.connect();
      await client.query(`LISTEN ${this.#channel}`);
      if (this.#closed) {
        await client.end();
        return;
      }
      this.#client = client;
    } catch (error) {
      this.#logger.warn('PostgreSQL listener could not connect', {
        channel: this.#channel,
        error: error instanceof Error ? error.message : String(error),
      });
      await client?.end().catch(() => {});
    }
  }

  /** A client of the URL that hands on this channel's payloads and notes a lost connection. */
  #newClient(driver: typeof pg): pg.Client {
    const client = new driver.Client({ connectionString: this.#url });
    client.on('notification', (message) => {
      if (message.channel === this.#channel && message.payload) this.#onPayload(message.payload);
    });
    client.on('error', (error) => {
      this.#logger.warn('PostgreSQL listener lost its connection', {
        channel: this.#channel,
        error: error.message,
      });
      if (this.#client === client) this.#client = undefined;
      void client.end().catch(() => {});
    });
    return client;
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
