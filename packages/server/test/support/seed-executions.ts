import { sql } from 'kysely';
import type { GatewayDatabase } from '../../src/db/index.js';

const SPAN_SECONDS = 90 * 86_400;

/**
 * Seeds `rows` synthetic execution records in one statement, for the benchmark of the log and the
 * overview (bench/executions): ids `e-<n>`, newest first, spread over the 90 days before `now`,
 * 200 users, 50 tools in 5 sources (`src0`..`src4`), 90 % ok, 6 % errors, 3 % denied, 1 %
 * timeouts. Then the planner's statistics are refreshed, as they would be on a live database.
 *
 * @example
 * await seedExecutions(database, 1_000_000, new Date());
 */
export async function seedExecutions(
  database: GatewayDatabase,
  rows: number,
  now: Date,
): Promise<void> {
  const step = SPAN_SECONDS / rows;
  const base = now.getTime() / 1000;
  const outcome = (i: string) =>
    `case when ${i} % 100 < 90 then 'ok' when ${i} % 100 < 96 then 'error' when ${i} % 100 < 99 then 'denied' else 'timeout' end`;
  const columns =
    'id, user_id, tool_path, started_at, duration_ms, outcome, approval, approved_by, arguments, error, endpoint_id, client_id';
  const values = (i: string, startedAt: string) => `'e-' || ${i}, 'user-' || (${i} % 200),
    'src' || (${i} % 5) || '.group' || ((${i} / 5) % 5) || '.tool' || ((${i} / 25) % 2),
    ${startedAt}, 1 + ((${i} % 2000) * 7919) % 2000, ${outcome(i)},
    case when ${i} % 50 = 0 then 'approved' else null end, null,
    '{"query":"x","limit":10}', case when ${i} % 100 between 90 and 95 then 'Upstream failed' else null end,
    case when ${i} % 3 = 0 then 'ep-' || (${i} % 20) else null end, null`;
  if (database.dialect === 'sqlite') {
    await sql
      .raw(
        `with recursive n(i) as (select 0 union all select i + 1 from n where i < ${rows - 1})
         insert into executions (${columns})
         select ${values('i', `strftime('%Y-%m-%dT%H:%M:%fZ', ${base} - i * ${step}, 'unixepoch')`)} from n`,
      )
      .execute(database.db);
    await sql`analyze`.execute(database.db);
  } else {
    await sql
      .raw(
        `insert into executions (${columns})
         select ${values('i', `to_char(to_timestamp(${base} - i * ${step}) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`)}
         from generate_series(0, ${rows - 1}) as i`,
      )
      .execute(database.db);
    await sql`vacuum analyze executions`.execute(database.db);
  }
}
