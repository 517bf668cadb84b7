import type { Hono } from 'hono';
import type { AppEnv } from '../http/app-env.js';
import { errorResponse, HttpError } from '../http/errors.js';
import type { Authenticate } from '../identity/authenticate.js';
import type { GatewayMetrics } from './gateway-metrics.js';

/**
 * Mounts `GET /metrics`: the Prometheus text format, for `Authorization: Bearer` with
 * `GATEWAY_METRICS_TOKEN` (a scraper's own secret) or `SERVICE_API_SECRET`. Anyone else gets the
 * API's 401/403; a wrong token counts toward the failed-credential limit like any other.
 */
export function mountMetrics(
  app: Hono<AppEnv>,
  metrics: GatewayMetrics,
  authenticate: Authenticate,
): void {
  app.get('/metrics', async (c) => {
    const principal = await authenticate(c, 'metrics');
    c.set('principal', principal);
    if (principal.kind === 'anonymous') {
      return errorResponse(
        c,
        new HttpError(
          'unauthorized',
          'Send Authorization: Bearer with GATEWAY_METRICS_TOKEN or SERVICE_API_SECRET',
        ),
      );
    }
    if (principal.kind !== 'trusted') {
      return errorResponse(
        c,
        new HttpError(
          'forbidden',
          'Only GATEWAY_METRICS_TOKEN or SERVICE_API_SECRET may read metrics',
        ),
      );
    }
    return c.body(await metrics.scrape(), 200, {
      'content-type': metrics.contentType,
      'cache-control': 'no-store',
    });
  });
}
