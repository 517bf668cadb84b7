/**
 * Which index each read of `executions` takes on SQLite (`explain query plan` of the statements
 * the code itself makes), and that every index of the table is taken by one of them: an index no
 * read uses is a cost every call's record pays for nothing (issue 37, README.md `batch41`). The
 * overview's read of the day by tool walked the tool-path index, every record ever made, to have
 * its groups in order (~0.75 s on a million records), where the day's range of the `started_at`
 * index holds all it needs.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CompiledQuery, type KyselyPlugin } from 'kysely';
import { describe, expect, it, onTestFinished } from 'vitest';
import { type GatewayDatabase, migrate, openDatabase } from '../db/index.js';
import { readActivity } from './activity.js';
import { openRecordsBefore } from './close-abandoned.js';
import { newExecutionId } from './execution-id.js';
import type { ExecutionFilters } from './filters.js';
import { rowStore, rowValues } from './record-rows.js';
import { findExecution, listExecutions } from './store.js';

const NOW = Date.UTC(2026, 10, 30, 12);

async function seeded(): Promise<GatewayDatabase> {
  const dir = await mkdtemp(join(tmpdir(), 'gateway-plans-'));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  const database = await openDatabase(join(dir, 'gateway.db'), dir);
  onTestFinished(() => database.close());
  await migrate(database);
  await rowStore(database)(
    Array.from({ length: 1500 }, (_, index) =>
      rowValues({
        id: newExecutionId(NOW - index * 1000),
        user_id: `user-${index % 7}`,
        tool_path: `source${index % 5}.tool.say`,
        started_at: new Date(NOW - index * 1000).toISOString(),
        duration_ms: index % 11 === 0 ? null : 3,
        outcome: index % 11 === 0 ? null : 'ok',
        arguments: '{}',
        endpoint_id: `endpoint-${index % 3}`,
      }),
    ),
  );
  return database;
}

/** The indexes SQLite's plan of each statement `read` makes on `executions` takes. */
async function plans(
  database: GatewayDatabase,
  read: (database: GatewayDatabase) => Promise<unknown>,
): Promise<string[][]> {
  const made: CompiledQuery[] = [];
  const executor = database.db.getExecutor();
  const spy: KyselyPlugin = {
    transformQuery: ({ node, queryId }) => {
      made.push(executor.compileQuery(node, queryId));
      return node;
    },
    transformResult: async ({ result }) => result,
  };
  await read({ ...database, db: database.db.withPlugin(spy) });
  return Promise.all(made.map((query) => plan(database, query)));
}

async function plan(database: GatewayDatabase, query: CompiledQuery): Promise<string[]> {
  const { rows } = await database.db.executeQuery<{ detail: string }>(
    CompiledQuery.raw(`explain query plan ${query.sql}`, [...query.parameters]),
  );
  return rows.map((row) => row.detail);
}

const page =
  (filters: ExecutionFilters, cursor?: { startedAt: string; id: string }) =>
  (database: GatewayDatabase) =>
    listExecutions(database, { ...filters, limit: 50, cursor });

describe('the reads of executions on SQLite', () => {
  it('each take the index made for them, and every index is taken', async () => {
    const database = await seeded();
    const cursor = { startedAt: new Date(NOW - 100_000).toISOString(), id: 'f' };
    const reads: Record<string, [(database: GatewayDatabase) => Promise<unknown>, string[]]> = {
      // The log of everyone, newest first, and its next page (keyset).
      everyone: [page({}), ['SCAN executions USING INDEX executions_started_at_id_idx']],
      'everyone, next page': [
        page({}, cursor),
        ['SEARCH executions USING INDEX executions_started_at_id_idx (started_at<?)'],
      ],
      'a time range': [
        page({ from: new Date(NOW - 500_000).toISOString() }),
        ['SEARCH executions USING INDEX executions_started_at_id_idx (started_at>?)'],
      ],
      'one user': [
        page({ userId: 'user-1' }),
        ['SEARCH executions USING INDEX executions_user_id_started_at_idx (user_id=?)'],
      ],
      'one endpoint': [
        page({ endpointId: 'endpoint-1' }),
        ['SEARCH executions USING INDEX executions_endpoint_id_started_at_idx (endpoint_id=?)'],
      ],
      // A prefix few calls have: read as a range of the tool-path index, counted first.
      'a rare tool': [
        page({ tool: 'nothing.' }),
        [
          'SEARCH executions USING INDEX executions_tool_path_idx (tool_path>? AND tool_path<?)',
          'SEARCH executions USING INDEX executions_tool_path_idx (tool_path>? AND tool_path<?)',
        ],
      ],
      'one record': [
        (database) => findExecution(database, 'some-id'),
        ['SEARCH executions USING INDEX sqlite_autoindex_executions_1 (id=?)'],
      ],
      // The overview's two grouped reads, of the time range alone, from the index alone.
      overview: [
        (database) => readActivity(database, new Date(NOW)),
        [
          'SEARCH executions USING COVERING INDEX executions_activity_idx (started_at>?)',
          'SEARCH executions USING COVERING INDEX executions_activity_idx (started_at>?)',
        ],
      ],
      // The sweeper of abandoned calls.
      'open records': [
        async (database) =>
          database.db.executeQuery(openRecordsBefore(database.db, new Date(NOW)).compile()),
        ['SEARCH executions USING INDEX executions_open_started_at_id_idx (started_at<?)'],
      ],
    };
    const taken = new Set<string>();
    for (const [name, [read, expected]] of Object.entries(reads)) {
      const steps = await plans(database, read);
      // The step on `executions` of each statement (sorts and grouping aside).
      const onTable = steps.map((details) =>
        details.find((detail) => / executions( |$)/.test(detail)),
      );
      expect({ name, plans: onTable }).toEqual({ name, plans: expected });
      for (const detail of onTable) {
        const index = /INDEX (\S+)/.exec(detail ?? '')?.[1];
        if (index !== undefined) taken.add(index);
      }
    }
    const { rows } = await database.db.executeQuery<{ name: string }>(
      CompiledQuery.raw(
        "select name from sqlite_master where type = 'index' and tbl_name = 'executions'",
      ),
    );
    expect([...taken].sort()).toEqual(rows.map((row) => row.name).sort());
  });
});
