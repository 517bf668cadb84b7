import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { NotifyListener, type NotifyListenerLogger } from '../../../db/notify-listener.js';
import type { UpstreamNotice } from '../../../upstream/notice.js';
import type { SessionDb } from './tables.js';

/** What one instance tells the others about the 2025 sessions. */
export type BusMessage =
  /** A client's answer to a request instance `to` sent (elicitation, sampling). */
  | { kind: 'answer'; to: string; sessionId: string; message: unknown }
  /** A client notification every holder of the session should hear (`notifications/cancelled`). */
  | { kind: 'notify'; sessionId: string; message: unknown }
  /** The session is closed (`DELETE`, expired, evicted): every instance drops its copy. */
  | { kind: 'closed'; sessionId: string }
  /** The session's client asked for another log level. */
  | { kind: 'level'; sessionId: string; level: string }
  /** Tools changed for the principals `change` selects (see sessions/tools-change.ts). */
  | { kind: 'tools'; change: ToolsChange }
  /**
   * An upstream source said its resources or prompts changed (heard by the instance sending); for
   * a resource update, the sessions that subscribed to it through the sending instance.
   */
  | { kind: 'notice'; sourceId: string; notice: UpstreamNotice; sessions?: string[] };

/**
 * Whose tools changed: everyone's (the catalog), one user's, those holding a role, or the clients
 * of one MCP endpoint (its tools or mode changed).
 */
export type ToolsChange =
  | { kind: 'catalog' }
  | { kind: 'assignment'; userId: string }
  | { kind: 'role'; roleId: string }
  | { kind: 'endpoint'; endpointId: string };

interface Envelope {
  from: string;
  body: BusMessage;
}

/** `NOTIFY` payloads must stay under 8000 bytes; a larger message travels by table. */
const MAX_INLINE_BYTES = 7000;

/**
 * Messages between the instances serving 2025 sessions, over PostgreSQL `LISTEN`/`NOTIFY` on one
 * channel per database schema (so deployments sharing a database in separate schemas never hear
 * each other). A message too large for a payload is stored in `mcp_session_messages` and the
 * notification carries its id. Every instance hears every message, its own included, and picks
 * what concerns it; delivery is at most once (a listener reconnecting misses what was sent
 * meanwhile).
 */
export class SessionBus {
  /** This instance's name on the bus, also the prefix of the request ids it sends to clients. */
  readonly instance = createHash('sha256')
    .update(crypto.randomUUID())
    .digest('base64url')
    .slice(0, 10);
  readonly #db: SessionDb;
  readonly #url: string;
  readonly #logger: NotifyListenerLogger;
  readonly #onMessage: (message: BusMessage, fromSelf: boolean) => void;
  #channel: Promise<string> | undefined;
  #listener: NotifyListener | undefined;

  constructor(options: {
    db: SessionDb;
    url: string;
    logger: NotifyListenerLogger;
    onMessage: (message: BusMessage, fromSelf: boolean) => void;
  }) {
    this.#db = options.db;
    this.#url = options.url;
    this.#logger = options.logger;
    this.#onMessage = options.onMessage;
  }

  /** Starts listening, unless listening already. Never throws: failures are logged. */
  async ensure(): Promise<void> {
    try {
      const channel = await this.#channelName();
      this.#listener ??= new NotifyListener({
        url: this.#url,
        channel,
        logger: this.#logger,
        onPayload: (payload) => void this.#receive(payload),
      });
      await this.#listener.ensure();
    } catch (error) {
      this.#channel = undefined;
      this.#logger.warn('MCP session bus not listening', {
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }

  /** Sends `body` to every instance. */
  async publish(body: BusMessage): Promise<void> {
    const channel = await this.#channelName();
    let payload = JSON.stringify({ from: this.instance, body } satisfies Envelope);
    if (Buffer.byteLength(payload) > MAX_INLINE_BYTES) {
      const id = crypto.randomUUID();
      await this.#db
        .insertInto('mcp_session_messages')
        .values({ id, payload, created_at: new Date().toISOString() })
        .execute();
      // Only answers are large (a sampling result); they are for exactly one instance.
      const to = body.kind === 'answer' ? body.to : undefined;
      payload = JSON.stringify({ from: this.instance, stored: id, to });
    }
    await sql`select pg_notify(${channel}, ${payload})`.execute(this.#db);
  }

  /** Stops listening and ends the connection it listens on. */
  async close(): Promise<void> {
    await this.#listener?.close();
  }

  async #receive(payload: string): Promise<void> {
    try {
      let envelope = JSON.parse(payload) as Partial<Envelope> & { stored?: string; to?: string };
      if (typeof envelope.stored === 'string') {
        if (envelope.to !== undefined && envelope.to !== this.instance) return;
        // An answer is taken by the one instance it is for; anything else is read by all and
        // left for the sweep.
        const row =
          envelope.to === undefined
            ? await this.#db
                .selectFrom('mcp_session_messages')
                .select('payload')
                .where('id', '=', envelope.stored)
                .executeTakeFirst()
            : await this.#db
                .deleteFrom('mcp_session_messages')
                .where('id', '=', envelope.stored)
                .returning('payload')
                .executeTakeFirst();
        if (row === undefined) return;
        envelope = JSON.parse(row.payload) as Partial<Envelope>;
      }
      if (envelope.body === undefined || typeof envelope.from !== 'string') return;
      this.#onMessage(envelope.body, envelope.from === this.instance);
    } catch (error) {
      this.#logger.warn('MCP session bus message dropped', {
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }

  #channelName(): Promise<string> {
    this.#channel ??= sql<{
      scope: string;
    }>`select current_database() || '.' || current_schema() as scope`
      .execute(this.#db)
      .then(({ rows }) => {
        const scope = rows[0]?.scope ?? '';
        return `gw_mcp_${createHash('sha256').update(scope).digest('hex').slice(0, 24)}`;
      });
    return this.#channel;
  }
}
