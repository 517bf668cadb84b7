import type { MiddlewareHandler } from 'hono';
import { errorResponse, HttpError } from './errors.js';

/** Paths a draining gateway still answers as usual: liveness, and readiness (which says 503). */
const HEALTH_PATHS = new Set(['/healthz', '/readyz']);

/**
 * Whether this gateway is draining: a SIGTERM came, so the balancer should send it nothing new.
 * From then on `/readyz` answers 503 and every new request 503 with `Connection: close` (a
 * balancer retries it on another instance; nothing of it ran here), while calls already in
 * flight finish. It never ends: a drained gateway stops.
 *
 * @example
 * const drain = new DrainState();
 * app.use('*', drain.refuseWhileDraining());
 * drain.start();
 * drain.isDraining(); // true
 */
export class DrainState {
  #draining = false;

  /** Whether a drain has started. */
  isDraining(): boolean {
    return this.#draining;
  }

  /** Starts draining (idempotent). */
  start(): void {
    this.#draining = true;
  }

  /**
   * Answers every request but the health checks with 503 `service_unavailable`, `Retry-After: 1`
   * and `Connection: close` while draining.
   */
  refuseWhileDraining(): MiddlewareHandler {
    // Not an async function: on every request's way, it would cost a promise and a turn.
    return (c, next) => {
      if (!this.#draining || HEALTH_PATHS.has(c.req.path)) return next();
      return Promise.resolve(
        errorResponse(
          c,
          new HttpError(
            'service_unavailable',
            'This instance is stopping; retry, and another instance answers',
          ),
          { 'Retry-After': '1', Connection: 'close' },
        ),
      );
    };
  }
}
