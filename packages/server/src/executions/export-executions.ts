import type { GatewayDatabase } from '../db/database.js';
import { defineRoute } from '../http/route.js';
import { exportStream } from './export.js';
import type { ExecutionRecorder } from './recorder.js';
import { exportExecutionsQuery } from './schemas.js';

/**
 * `GET /api/executions/export?format=jsonl|csv&<filters>` (admin): every call matching the
 * filters, newest first, streamed; CSV cells that a spreadsheet would run as a formula are
 * defused.
 *
 * @example
 * routes.push(exportExecutionsRoute(services));
 */
export function exportExecutionsRoute(services: {
  database: GatewayDatabase;
  executions: ExecutionRecorder;
}) {
  return defineRoute({
    method: 'get',
    path: '/api/executions/export',
    summary: 'Export the filtered tool calls as JSON Lines or CSV (admin)',
    tag: 'Executions',
    access: 'admin',
    query: exportExecutionsQuery,
    responses: {
      200: {
        description:
          'The records, streamed: `application/x-ndjson` (one JSON record a line) or `text/csv` (a header row, then one row a record)',
      },
      400: { description: 'A bad filter or format, or an unknown parameter' },
      401: { description: 'No credentials' },
      403: { description: 'Not an admin' },
    },
    async handler(_c, { query }) {
      const { format, ...filters } = query;
      await services.executions.flush();
      const stamp = new Date().toISOString().slice(0, 19).replaceAll(':', '-');
      return new Response(exportStream(services.database, filters, format), {
        status: 200,
        headers: {
          'content-type': format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson',
          'content-disposition': `attachment; filename="executions-${stamp}.${format}"`,
          'cache-control': 'no-store',
        },
      });
    },
  });
}
