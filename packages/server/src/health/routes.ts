import type { healthSchema } from '@gateway/sdk/contract';
import type { Hono } from 'hono';
import type { z } from 'zod';
import type { AppEnv } from '../http/app-env.js';
import { errorResponse, HttpError } from '../http/errors.js';
import type { DatabaseHealth } from './database-health.js';
import type { Readiness } from './readiness.js';

/** What a client is told to wait before retrying when the database is away, in seconds. */
export const DATABASE_RETRY_AFTER_SECONDS = 2;

/**
 * The answer to a request the database could not serve (stopped, restarting, unreachable, or a
 * SQLite file locked or read-only): 503 `database_unavailable`, with `Retry-After`.
 *
 * @example
 * if (isDatabaseUnavailable(error)) return errorResponse(c, databaseUnavailable());
 */
export function databaseUnavailable(): HttpError {
  return new HttpError(
    'database_unavailable',
    "The gateway's database is unavailable for the moment; retry shortly",
    undefined,
    { 'Retry-After': String(DATABASE_RETRY_AFTER_SECONDS) },
  );
}

/**
 * Mounts the probes, outside `/api` and answering any `Host`:
 * - `GET /healthz`, liveness: 200 while the process serves HTTP at all, never waiting for the
 *   database; its body says how the database was when last known (`"up"` or `"down"`).
 * - `GET /readyz`, readiness: 200 when this instance can serve (its database answers a trivial
 *   query within 2 s); 503 with the error body and `Retry-After` when it cannot.
 *
 * @example
 * mountHealth(app, { health, readiness });
 */
export function mountHealth(
  app: Hono<AppEnv>,
  probes: { health: DatabaseHealth; readiness: Readiness },
): void {
  app.get('/healthz', (c) =>
    c.json({ ok: true, database: probes.health.state } satisfies z.infer<typeof healthSchema>),
  );
  app.get('/readyz', async (c) => {
    const notReady = await probes.readiness.check();
    if (notReady === undefined) return c.json({ ready: true });
    return errorResponse(
      c,
      new HttpError(notReady.code, notReady.message, undefined, {
        'Retry-After': String(DATABASE_RETRY_AFTER_SECONDS),
      }),
    );
  });
}

/**
 * The readiness check of the database: not ready while it does not answer.
 *
 * @example
 * readiness.add(databaseReadiness(health));
 */
export function databaseReadiness(health: DatabaseHealth) {
  return async () =>
    (await health.probe())
      ? undefined
      : ({
          code: 'database_unavailable',
          message: 'This instance cannot reach its database',
        } as const);
}
