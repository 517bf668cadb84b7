import type pg from 'pg';

/** Where {@link NotifyListener} reports a lost or failed connection. */
export interface NotifyListenerLogger {
  warn(message: string, fields?: Record<string, unknown>): void;
}

/** The first wait before connecting again after a loss; it doubles up to {@link MAX_BACKOFF_MS}. */
const FIRST_BACKOFF_MS = 100;
/**
 * The longest wait between two attempts: once the server answers again, the listener is back
 * within about this (well inside the 5 s an instance has to serve normally again).
 */
const MAX_BACKOFF_MS = 2000;
/** How long opening the connection may take. */
const CONNECT_TIMEOUT_MS = 5000;

/**
 * A dedicated PostgreSQL connection that `LISTEN`s on one channel and hands each payload to
 * `onPayload`. It connects on first `ensure()`; once asked to listen, it reconnects and listens
 * again by itself after losing its server (a restart, a failover), with a backoff from 100 ms up
 * to 2 s between attempts. A notification sent while it was away is lost, which callers must
 * tolerate.
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
  /** Set by the first `ensure()`: from then on a lost connection is made again. */
  #wanted = false;
  #retry: NodeJS.Timeout | undefined;
  #backoffMs = FIRST_BACKOFF_MS;

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
    this.#wanted = true;
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
      if (this.#backoffMs > FIRST_BACKOFF_MS) {
        this.#logger.warn('PostgreSQL listener connected again', { channel: this.#channel });
      }
      this.#backoffMs = FIRST_BACKOFF_MS;
    } catch (error) {
      this.#logger.warn('PostgreSQL listener could not connect', {
        channel: this.#channel,
        error: error instanceof Error ? error.message : String(error),
      });
      await client?.end().catch(() => {});
      this.#scheduleReconnect();
    }
  }

  /** Connects again after the current backoff, which then doubles (up to 2 s). */
  #scheduleReconnect(): void {
    if (this.#closed || !this.#wanted || this.#retry !== undefined) return;
    const delay = this.#backoffMs;
    this.#backoffMs = Math.min(this.#backoffMs * 2, MAX_BACKOFF_MS);
    this.#retry = setTimeout(() => {
      this.#retry = undefined;
      void this.ensure();
    }, delay);
    // A listener waiting to reconnect never keeps the process alive by itself.
    this.#retry.unref();
  }

  /** A client of the URL that hands on this channel's payloads and notes a lost connection. */
  #newClient(driver: typeof pg): pg.Client {
    const client = new driver.Client({
      connectionString: this.#url,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      keepAlive: true,
    });
    client.on('notification', (message) => {
      if (message.channel === this.#channel && message.payload) this.#onPayload(message.payload);
    });
    client.on('error', (error) => {
      this.#logger.warn('PostgreSQL listener lost its connection', {
        channel: this.#channel,
        error: error.message,
      });
      const wasListening = this.#client === client;
      if (wasListening) this.#client = undefined;
      void client.end().catch(() => {});
      // The first wait is short: a restart is usually over in a second or two.
      if (wasListening) this.#scheduleReconnect();
    });
    // A connection the server closed without an error message first.
    client.on('end', () => {
      if (this.#client !== client) return;
      this.#client = undefined;
      this.#scheduleReconnect();
    });
    return client;
  }

  /** Stops listening and closes the connection. */
  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#retry);
    this.#retry = undefined;
    await this.#connecting;
    const client = this.#client;
    this.#client = undefined;
    await client?.end().catch(() => {});
  }
}
