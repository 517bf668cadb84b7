import { type AnyRoute, defineRoute } from '../http/route.js';
import type { GatewayServices } from '../services.js';
import { readOverview } from './overview.js';
import { overviewSchema } from './schemas.js';

/** What the overview route reads of the gateway's services. */
export type OverviewDeps = Pick<GatewayServices, 'database' | 'executions'>;

/**
 * `GET /api/overview` (admin): the activity overview of the web app's first admin page.
 *
 * @example
 * routes.push(...overviewRoutes(services));
 */
export function overviewRoutes(services: OverviewDeps): AnyRoute[] {
  return [
    defineRoute({
      method: 'get',
      path: '/api/overview',
      summary: 'Calls per hour by outcome, top tools with latency, waiting approvals (admin)',
      tag: 'Executions',
      access: 'service-or-admin',
      responses: {
        200: { description: 'The overview', schema: overviewSchema },
        400: { description: 'An unknown parameter' },
        401: { description: 'No credentials' },
        403: { description: 'Not an admin' },
      },
      async handler(c) {
        await services.executions.flush();
        return c.json(await readOverview(services.database, new Date()), 200);
      },
    }),
  ];
}
