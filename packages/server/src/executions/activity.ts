import { sql } from 'kysely';
import type { GatewayDatabase } from '../db/index.js';

/** How a call ended, as the overview counts it. */
export const ACTIVITY_OUTCOMES = ['ok', 'error', 'denied', 'pending', 'expired'] as const;
export type ActivityOutcome = (typeof ACTIVITY_OUTCOMES)[number];

/** Calls started in one hour (UTC), by outcome. */
export interface HourOfActivity {
  /** The hour's start, ISO 8601. */
  hour: string;
  counts: Record<ActivityOutcome, number>;
}

/** A tool's calls over the window, with its latency. */
export interface ToolActivity {
  toolPath: string;
  calls: number;
  /** Calls that ended in an error or a timeout. */
  errors: number;
  /** Estimated from a latency histogram (milliseconds); null without a finished call. */
  p50Ms: number | null;
  p95Ms: number | null;
}

/** What the admin overview plots. */
export interface Activity {
  /** The end of the window (exclusive), ISO 8601. */
  until: string;
  /** 24 hours, oldest first. */
  last24h: HourOfActivity[];
  /** 7 days in hours (168), oldest first. */
  last7d: HourOfActivity[];
  /** Over the last 24 hours, most calls first (at most 10). */
  topByCalls: ToolActivity[];
  /** Over the last 24 hours, most errors first (at most 10; tools with none left out). */
  topByErrors: ToolActivity[];
}

/**
 * Upper bounds (ms) of the latency histogram's buckets. Percentiles are interpolated within a
 * bucket: exact enough to tell 40 ms from 400 ms, and one grouped scan of an index instead of
 * sorting every duration (docs/decisions.md, "Percentiles from a histogram").
 */
const BOUNDS = [
  1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000, 30_000, 60_000, 300_000, 3_600_000,
];

const HOUR = 3_600_000;

function classify(outcome: string | null, approval: string | null): ActivityOutcome | undefined {
  if (approval === 'expired') return 'expired';
  if (outcome === 'ok') return 'ok';
  if (outcome === 'error' || outcome === 'timeout') return 'error';
  if (outcome === 'denied') return 'denied';
  if (outcome === null && approval === 'pending') return 'pending';
  return undefined;
}

function emptyCounts(): Record<ActivityOutcome, number> {
  return { ok: 0, error: 0, denied: 0, pending: 0, expired: 0 };
}

function bucketExpression() {
  const cases = BOUNDS.map(
    (bound, index) => sql`when duration_ms < ${sql.lit(bound)} then ${sql.lit(index)}`,
  );
  return sql<number>`case when duration_ms is null then -1 ${sql.join(cases, sql` `)} else ${sql.lit(BOUNDS.length)} end`;
}

function percentile(histogram: Map<number, number>, total: number, share: number): number | null {
  if (total === 0) return null;
  const rank = share * total;
  let seen = 0;
  for (let index = 0; index <= BOUNDS.length; index++) {
    const count = histogram.get(index) ?? 0;
    if (count === 0) continue;
    if (seen + count >= rank) {
      const low = index === 0 ? 0 : (BOUNDS[index - 1] as number);
      const high = BOUNDS[index] ?? low;
      return Math.round(low + ((rank - seen) / count) * (high - low));
    }
    seen += count;
  }
  return BOUNDS.at(-1) ?? null;
}

/** The calls since `since` by tool and duration bucket, with their errors. */
function toolsSince(database: GatewayDatabase, since: string) {
  const bucket = bucketExpression();
  // SQLite: `+tool_path` keeps the planner from walking the tool-path index, every record ever
  // made, to have the groups in order; it reads the day's range of the `started_at` index
  // instead. PostgreSQL picks the range from its statistics (and has no unary `+` on text).
  const tool = database.dialect === 'sqlite' ? sql<string>`+tool_path` : sql<string>`tool_path`;
  return database.db
    .selectFrom('executions')
    .select([
      'tool_path',
      bucket.as('bucket'),
      sql<number>`count(*)`.as('calls'),
      sql<number>`sum(case when outcome in ('error', 'timeout') then 1 else 0 end)`.as('errors'),
    ])
    .where('started_at', '>=', since)
    .groupBy([tool, bucket])
    .execute();
}

/**
 * The calls of the last 7 days (to the end of the current hour) by hour and outcome, and the top
 * tools of the last 24 hours by calls and by errors with p50/p95. Two grouped reads of the `started_at` index
 * (migration 016), which holds every column they need.
 *
 * @example
 * const activity = await readActivity(database, new Date());
 */
export async function readActivity(database: GatewayDatabase, now: Date): Promise<Activity> {
  const until = Math.floor(now.getTime() / HOUR) * HOUR + HOUR;
  const since = new Date(until - 168 * HOUR).toISOString();
  const { db } = database;
  // Side by side: on PostgreSQL each read takes its own pooled connection.
  const [hourly, perTool] = await Promise.all([
    db
      .selectFrom('executions')
      .select([
        sql<string>`substr(started_at, 1, 13)`.as('hour'),
        'outcome',
        'approval',
        sql<number>`count(*)`.as('calls'),
      ])
      .where('started_at', '>=', since)
      .groupBy([sql`substr(started_at, 1, 13)`, 'outcome', 'approval'])
      .execute(),
    toolsSince(database, new Date(until - 24 * HOUR).toISOString()),
  ]);

  const hours = new Map<string, HourOfActivity>();
  const last7d: HourOfActivity[] = [];
  for (let at = until - 168 * HOUR; at < until; at += HOUR) {
    const entry = { hour: new Date(at).toISOString(), counts: emptyCounts() };
    hours.set(entry.hour.slice(0, 13), entry);
    last7d.push(entry);
  }
  for (const row of hourly) {
    const kind = classify(row.outcome, row.approval);
    const entry = hours.get(row.hour);
    if (kind !== undefined && entry !== undefined) entry.counts[kind] += Number(row.calls);
  }

  const tools = new Map<
    string,
    { calls: number; errors: number; histogram: Map<number, number> }
  >();
  for (const row of perTool) {
    const tool = tools.get(row.tool_path) ?? { calls: 0, errors: 0, histogram: new Map() };
    tool.calls += Number(row.calls);
    tool.errors += Number(row.errors);
    const index = Number(row.bucket);
    if (index >= 0) tool.histogram.set(index, (tool.histogram.get(index) ?? 0) + Number(row.calls));
    tools.set(row.tool_path, tool);
  }
  const summaries: ToolActivity[] = [...tools].map(([toolPath, tool]) => {
    const finished = [...tool.histogram.values()].reduce((sum, count) => sum + count, 0);
    return {
      toolPath,
      calls: tool.calls,
      errors: tool.errors,
      p50Ms: percentile(tool.histogram, finished, 0.5),
      p95Ms: percentile(tool.histogram, finished, 0.95),
    };
  });
  const byName = (a: ToolActivity, b: ToolActivity) => a.toolPath.localeCompare(b.toolPath);
  return {
    until: new Date(until).toISOString(),
    last24h: last7d.slice(-24),
    last7d,
    topByCalls: [...summaries].sort((a, b) => b.calls - a.calls || byName(a, b)).slice(0, 10),
    topByErrors: summaries
      .filter((tool) => tool.errors > 0)
      .sort((a, b) => b.errors - a.errors || byName(a, b))
      .slice(0, 10),
  };
}
