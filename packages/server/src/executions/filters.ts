import { type Expression, type ExpressionBuilder, type SqlBool, sql } from 'kysely';
import { z } from 'zod';
import type { DatabaseDialect, DatabaseSchema } from '../db/index.js';

/** What the log can be narrowed to; every field optional, all of them together (AND). */
export interface ExecutionFilters {
  userId?: string | undefined;
  /** Tool paths starting with this text, as typed (no wildcard: `%` and `_` are literal). */
  tool?: string | undefined;
  /** The source (namespace) a tool belongs to: paths starting with `<source>.`. */
  source?: string | undefined;
  outcome?: OutcomeFilter | undefined;
  endpointId?: string | undefined;
  /** ISO 8601, inclusive. */
  from?: string | undefined;
  /** ISO 8601, exclusive. */
  to?: string | undefined;
}

/**
 * The outcomes a filter may ask for: `running` is a call without one yet (or waiting); `pending`
 * a call waiting for its approval, `expired` one whose approval was never given in time (as the
 * overview counts them).
 */
export const OUTCOME_FILTERS = [
  'ok',
  'error',
  'denied',
  'timeout',
  'running',
  'pending',
  'expired',
] as const;
export type OutcomeFilter = (typeof OUTCOME_FILTERS)[number];

const instant = z.iso
  .datetime({ offset: true })
  .transform((value) => new Date(value).toISOString())
  .refine((value) => /^\d{4}-/.test(value), 'must be between years 0000 and 9999');

/** The filter fields of the log's query (`GET /api/executions` and its export). */
export const filterFields = {
  userId: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .meta({ description: "Whose calls; omitted: everyone's (admins and the service secret only)" }),
  tool: z
    .string()
    .min(1)
    .max(300)
    .optional()
    .meta({ description: 'Tool paths starting with this text (literal, no wildcards)' }),
  source: z
    .string()
    .min(1)
    .max(100)
    .optional()
    .meta({ description: 'The source (namespace) of the tool: paths starting with `<source>.`' }),
  outcome: z.enum(OUTCOME_FILTERS).optional().meta({
    description:
      '`running`: no outcome yet (running, or waiting for an approval); `pending`: waiting for an approval; `expired`: the approval expired',
  }),
  endpointId: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .meta({ description: 'The MCP endpoint the call came through' }),
  from: instant.optional().meta({ description: 'Calls started at or after (ISO 8601)' }),
  to: instant.optional().meta({ description: 'Calls started before (ISO 8601)' }),
};

type Eb = ExpressionBuilder<DatabaseSchema, 'executions'>;

function startsWith(eb: Eb, prefix: string): Expression<SqlBool> {
  // substr, not LIKE: the text is matched literally (and case-sensitively) on both engines.
  return eb(sql<string>`substr(tool_path, 1, ${[...prefix].length})`, '=', prefix);
}

/** The tool-path prefix a filter asks for (the longer of `tool` and `<source>.`), if any. */
export function pathPrefix(filters: ExecutionFilters): string | undefined {
  const source = filters.source === undefined ? undefined : `${filters.source}.`;
  if (filters.tool === undefined) return source;
  if (source === undefined) return filters.tool;
  return filters.tool.length >= source.length ? filters.tool : source;
}

/**
 * `tool_path` within the range of paths starting with `prefix`, in byte order (as the
 * `executions_tool_path_idx` index of migration 016 sorts them), so the index can read it.
 */
export function prefixRange(eb: Eb, prefix: string, dialect: DatabaseDialect): Expression<SqlBool> {
  const column =
    dialect === 'postgres' ? sql<string>`tool_path collate "C"` : sql<string>`tool_path`;
  return eb.and([eb(column, '>=', prefix), eb(column, '<', `${prefix}\u{10FFFF}`)]);
}

function outcomeCondition(eb: Eb, outcome: OutcomeFilter): Expression<SqlBool> {
  switch (outcome) {
    case 'running':
      return eb('outcome', 'is', null);
    case 'pending':
      return eb.and([eb('outcome', 'is', null), eb('approval', '=', 'pending')]);
    case 'expired':
      return eb('approval', '=', 'expired');
    default:
      return eb('outcome', '=', outcome);
  }
}

/**
 * The conditions of `filters`, for a `where` on `executions`. Every value is a bound parameter.
 *
 * @example
 * query.where((eb) => filterConditions(eb, { tool: 'github.', outcome: 'error' }));
 */
export function filterConditions(eb: Eb, filters: ExecutionFilters): Expression<SqlBool> {
  const all: Expression<SqlBool>[] = [];
  if (filters.userId !== undefined) all.push(eb('user_id', '=', filters.userId));
  if (filters.tool !== undefined) all.push(startsWith(eb, filters.tool));
  if (filters.source !== undefined) all.push(startsWith(eb, `${filters.source}.`));
  if (filters.outcome !== undefined) all.push(outcomeCondition(eb, filters.outcome));
  if (filters.endpointId !== undefined) all.push(eb('endpoint_id', '=', filters.endpointId));
  if (filters.from !== undefined) all.push(eb('started_at', '>=', filters.from));
  if (filters.to !== undefined) all.push(eb('started_at', '<', filters.to));
  return eb.and(all);
}
