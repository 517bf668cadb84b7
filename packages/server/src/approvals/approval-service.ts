import type { GatewayDatabase } from '../db/index.js';
import type { ServerLogger } from '../http/logger.js';
import { announceDecision, DecisionListener } from './decision-listener.js';
import {
  type ApprovalItem,
  type DecideResult,
  decideApproval,
  expireApproval,
  findSettled,
  insertAnsweredApproval,
  insertPendingApproval,
  type NewApproval,
} from './store.js';

/** Options of {@link ApprovalService}. */
export interface ApprovalServiceOptions {
  database: GatewayDatabase;
  logger: ServerLogger;
  /** The PostgreSQL URL to `LISTEN` on for decisions made by other instances. */
  postgresUrl?: string | undefined;
  /**
   * How often waiters check the database for decisions made elsewhere. Default 250 ms on SQLite;
   * on PostgreSQL, where `NOTIFY` wakes them, a 5 s safety net.
   */
  pollIntervalMs?: number;
}

/** What {@link ApprovalService.request} asks for. */
export interface ApprovalRequest {
  executionId: string;
  userId: string;
  toolPath: string;
  message: string;
  /** Already redacted. */
  args: unknown;
  /** How long the call waits for a decision. */
  timeoutMs: number;
  /** Aborted when the caller goes away: the approval then expires. */
  signal?: AbortSignal;
  /** Called once the approval is stored and can be decided. */
  onPending?: (approval: ApprovalItem) => void;
}

type Waiter = (approval: ApprovalItem) => void;

/**
 * Approvals decided outside the MCP client (DESIGN "MCP", path 3): a call stores a pending
 * approval and waits; a decision made through the API on any instance wakes it (`NOTIFY` on
 * PostgreSQL, polling on SQLite); the time limit or the caller leaving expires it.
 *
 * @example
 * const approval = await approvals.request({ executionId, userId, toolPath, message, args, timeoutMs: 300_000 });
 * const approved = approval.status === 'approved';
 */
export class ApprovalService {
  readonly #database: GatewayDatabase;
  readonly #logger: ServerLogger;
  readonly #pollMs: number;
  readonly #listener: DecisionListener | undefined;
  readonly #waiters = new Map<string, Waiter>();
  #poller: ReturnType<typeof setInterval> | undefined;
  #polling = false;

  constructor(options: ApprovalServiceOptions) {
    this.#database = options.database;
    this.#logger = options.logger;
    const listening = options.database.dialect === 'postgres' && options.postgresUrl !== undefined;
    this.#pollMs = options.pollIntervalMs ?? (listening ? 5000 : 250);
    this.#listener =
      listening && options.postgresUrl !== undefined
        ? new DecisionListener({
            url: options.postgresUrl,
            logger: options.logger,
            onDecided: (id) => {
              if (this.#waiters.has(id)) void this.#check([id]);
            },
          })
        : undefined;
  }

  /**
   * Stores a pending approval and waits until it is decided, expires or the caller leaves.
   *
   * @returns the approval as it ended: `approved`, `denied` or `expired`.
   * @throws the database's error when the approval cannot be stored.
   */
  async request(request: ApprovalRequest): Promise<ApprovalItem> {
    // Listening before the approval exists: a decision made the moment it shows up elsewhere
    // would otherwise be announced before this instance listens, and wait for the slow poll.
    await this.#listener?.ensure();
    const now = new Date();
    const pending = await insertPendingApproval(this.#database.db, {
      id: crypto.randomUUID(),
      executionId: request.executionId,
      userId: request.userId,
      toolPath: request.toolPath,
      message: request.message,
      args: request.args,
      createdAt: now,
      expiresAt: new Date(now.getTime() + request.timeoutMs),
    });
    request.onPending?.(pending);
    return this.#wait(pending, request.timeoutMs, request.signal);
  }

  /**
   * Decides a pending approval and wakes the call waiting for it, wherever it runs.
   *
   * @throws the database's error when the update fails.
   */
  async decide(id: string, decision: 'approve' | 'deny', decidedBy: string): Promise<DecideResult> {
    const result = await decideApproval(this.#database.db, id, {
      status: decision === 'approve' ? 'approved' : 'denied',
      decidedBy,
      now: new Date(),
    });
    if (result.ok) {
      this.#waiters.get(id)?.(result.approval);
      await announceDecision(this.#database, id).catch((error: unknown) => {
        this.#logger.warn('approval decision not announced; waiters will poll', {
          approvalId: id,
          error: error instanceof Error ? error.message : String(error),
        });
      });
    }
    return result;
  }

  /**
   * Records an approval the client answered in-band, once: false when `approval.id` was used
   * before (a replayed answer).
   */
  recordAnswered(
    approval: NewApproval & { status: 'approved' | 'denied'; decidedBy: string; decidedAt: Date },
  ): Promise<boolean> {
    return insertAnsweredApproval(this.#database.db, approval);
  }

  /** Stops polling and listening; calls still waiting see their approvals expire. */
  async close(): Promise<void> {
    this.#stopPolling();
    await this.#listener?.close();
  }

  #wait(pending: ApprovalItem, timeoutMs: number, signal?: AbortSignal): Promise<ApprovalItem> {
    return new Promise((resolve) => {
      let settled = false;
      const finish = (approval: ApprovalItem) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.#waiters.delete(pending.id);
        if (this.#waiters.size === 0) this.#stopPolling();
        resolve(approval);
      };
      const expire = () => {
        expireApproval(this.#database.db, pending.id, new Date())
          .then((approval) => finish(approval ?? { ...pending, status: 'expired' }))
          .catch((error: unknown) => {
            this.#logger.error('approval not marked expired', {
              approvalId: pending.id,
              error: error instanceof Error ? error.message : String(error),
            });
            finish({ ...pending, status: 'expired' });
          });
      };
      const onAbort = () => expire();
      const timer = setTimeout(expire, timeoutMs);
      timer.unref?.();
      if (signal?.aborted) {
        expire();
        return;
      }
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiters.set(pending.id, finish);
      this.#startPolling();
    });
  }

  #startPolling(): void {
    void this.#listener?.ensure();
    if (this.#poller !== undefined) return;
    this.#poller = setInterval(() => {
      void this.#listener?.ensure();
      if (this.#polling) return;
      this.#polling = true;
      void this.#check([...this.#waiters.keys()]).finally(() => {
        this.#polling = false;
      });
    }, this.#pollMs);
    this.#poller.unref?.();
  }

  #stopPolling(): void {
    if (this.#poller !== undefined) clearInterval(this.#poller);
    this.#poller = undefined;
  }

  async #check(ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    try {
      for (const approval of await findSettled(this.#database.db, ids)) {
        this.#waiters.get(approval.id)?.(approval);
      }
    } catch (error) {
      this.#logger.warn('approval poll failed', {
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }
}
