import { type Execution, executionPage } from '../../api/schemas.js';
import { type SignedInOptions, signedInApi } from '../../api/signed-in.js';
import { CliError } from '../../cli-error.js';
import { printJson, printTable } from '../../output/table.js';

export type { Execution } from '../../api/schemas.js';

/** Options of `runExecutionsList()`: the filters of `GET /api/executions`. */
export interface ExecutionsListOptions extends SignedInOptions {
  /** Whose calls; default the signed-in user's own. */
  user?: string | undefined;
  /** Everyone's calls (admins). */
  all?: boolean | undefined;
  tool?: string | undefined;
  source?: string | undefined;
  outcome?: string | undefined;
  endpoint?: string | undefined;
  /** ISO 8601, or a duration back from now: `30m`, `24h`, `7d`. */
  since?: string | undefined;
  until?: string | undefined;
  limit?: string | undefined;
  cursor?: string | undefined;
  json?: boolean | undefined;
  /** Default: the clock. */
  now?: () => Date;
}

const UNITS = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/**
 * An instant as `--since`/`--until` take it: ISO 8601 as is, or `<n>m|h|d` before `now`.
 *
 * @throws CliError (exit 2) for anything else.
 */
export function instantOf(value: string, now: Date, flag: string): string {
  const relative = /^(\d{1,6})([mhd])$/.exec(value);
  if (relative !== null) {
    const unit = UNITS[relative[2] as keyof typeof UNITS];
    return new Date(now.getTime() - Number(relative[1]) * unit).toISOString();
  }
  if (/^\d{4}-\d{2}-\d{2}/.test(value) && !Number.isNaN(Date.parse(value))) return value;
  throw new CliError(
    `${flag} takes an ISO 8601 time (2026-11-28T09:00:00Z) or a duration back from now (30m, 24h, 7d); got "${value}"`,
    { exitCode: 2 },
  );
}

/**
 * `gateway executions list`: tool calls, newest first, with the filters of `GET /api/executions`
 * (the signed-in user's own by default; `--user` or `--all` for admins). Prints the cursor of the
 * next page when there is one.
 */
export async function runExecutionsList(options: ExecutionsListOptions): Promise<Execution[]> {
  const { io } = options;
  if (options.all && options.user !== undefined) {
    throw new CliError('Give --user or --all, not both', { exitCode: 2 });
  }
  const now = options.now?.() ?? new Date();
  const api = await signedInApi(options);
  const userId = options.all ? undefined : (options.user ?? (await api.userId()));
  const { executions, nextCursor } = await api.call({
    method: 'GET',
    path: '/api/executions',
    query: {
      userId,
      tool: options.tool,
      source: options.source,
      outcome: options.outcome,
      endpointId: options.endpoint,
      from: options.since === undefined ? undefined : instantOf(options.since, now, '--since'),
      to: options.until === undefined ? undefined : instantOf(options.until, now, '--until'),
      limit: options.limit,
      cursor: options.cursor,
    },
    schema: executionPage,
  });
  if (options.json) {
    printJson(io, { executions, nextCursor });
    return executions;
  }
  if (executions.length === 0) {
    io.stdout.write('No tool calls match.\n');
    return executions;
  }
  printTable(
    io,
    ['ID', 'STARTED', 'USER', 'TOOL', 'OUTCOME', 'MS', 'APPROVAL'],
    executions.map((execution) => [
      execution.id,
      execution.startedAt,
      execution.userId,
      execution.toolPath,
      execution.outcome ?? 'running',
      execution.durationMs === null ? '-' : String(Math.round(execution.durationMs)),
      execution.approval ?? '-',
    ]),
  );
  if (nextCursor !== null) io.stdout.write(`More: add --cursor ${nextCursor}\n`);
  return executions;
}
