/**
 * A feature owns its tables (issue 36): each table family has one owner, a module or a folder,
 * and only the owner's code names the table in a query (kysely's `selectFrom('t')`,
 * `insertInto`, `updateTable`, `deleteFrom`, joins, or raw SQL `from "t"`). Other code asks the
 * owner. Its table types sit with it too, in the owner folder's `tables.ts` (`connections/tables.ts`,
 * `mcp-oauth/tables.ts`, ...), which imports nothing from `db/`; `db/schema.ts` only composes them
 * into `DatabaseSchema` (and declares `db/`'s own). Migrations stay in `db/migrations/`, one
 * ordered history of the whole database (docs/decisions.md). Migrations, `db/schema.ts` and tests
 * are exempt from the query check.
 *
 * A statement that needs another owner's table composes a fragment that owner exports: the
 * hot-path token lookups read an endpoint or an OAuth access token with its user's role in one
 * statement, the endpoint's owner selecting identity's `applyingRole` subqueries
 * (`mcp-endpoints/token-query.ts`, `mcp-oauth/token-query.ts`).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = import.meta.dirname;

/** Each table's owner: a file, or a folder ending in `/` (relative to packages/server/src). */
const OWNERS: Record<string, string> = {
  // better-auth's tables
  // who a caller is: users, service accounts, the roles that apply to them and their tokens
  // (docs/decisions.md: one identity module)
  user: 'identity/',
  user_roles: 'identity/',
  roles: 'identity/',
  service_accounts: 'identity/',
  api_tokens: 'identity/',
  session: 'auth/',
  // linked OAuth accounts, and the tokens vended from them
  account: 'vending/',
  verification: 'cli-auth/codes.ts',
  rateLimit: 'auth/rate-limit.ts',
  // credentials: user, team and upstream-OAuth rows alike
  connections: 'connections/',
  oauth_reconnect: 'vending/reconnect-marks.ts',
  refresh_leases: 'db/refresh-lease.ts',
  // tokens and who they act for
  mcp_endpoints: 'mcp-endpoints/',
  mcp_oauth_clients: 'mcp-oauth/',
  mcp_oauth_codes: 'mcp-oauth/',
  mcp_oauth_tokens: 'mcp-oauth/',
  // sources
  registry_sources: 'registry/',
  upstream_tools: 'upstream/',
  upstream_oauth_clients: 'upstream-oauth/',
  upstream_oauth_flows: 'upstream-oauth/',
  upstream_oauth_scopes: 'upstream-oauth/',
  plugin_oauth_clients: 'provider-clients/store.ts',
  // calls
  executions: 'executions/',
  approvals: 'approvals/store.ts',
  invites: 'invites/store.ts',
  mcp_rounds: 'mcp/call/round-store.ts',
  mcp_sessions: 'mcp/transport/shared-sessions/',
  mcp_session_events: 'mcp/transport/shared-sessions/',
  mcp_session_messages: 'mcp/transport/shared-sessions/',
  schema_state: 'db/',
};

const QUERY =
  /\.(?:selectFrom|insertInto|updateTable|deleteFrom|innerJoin|leftJoin|rightJoin|fullJoin|mergeInto|replaceInto)\(\s*['"]([A-Za-z_]+)(?:\s+as\s+\w+)?['"]/g;
const RAW = /\b(?:from|join|into|update)\s+"([A-Za-z_]+)"/gi;

/** Every shipped source file under `dir`: no tests, no migrations, no schema declarations. */
function shipped(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return path === join(SRC, 'db', 'migrations') ? [] : shipped(path);
    if (!entry.name.endsWith('.ts') || /\.test(-d)?\.ts$/.test(entry.name)) return [];
    return path === join(SRC, 'db', 'schema.ts') ? [] : [path];
  });
}

/** The tables `code` names in queries. */
export function tablesNamed(code: string): Set<string> {
  const found = new Set<string>();
  for (const pattern of [QUERY, RAW]) {
    for (const match of code.matchAll(pattern)) {
      if (match[1] !== undefined && match[1] in OWNERS) found.add(match[1]);
    }
  }
  return found;
}

function owns(owner: string, file: string): boolean {
  return owner.endsWith('/') ? file.startsWith(owner) : file === owner;
}

/** `<file>: <table>` for each table a file names outside its owner. */
function violations(files: { file: string; code: string }[]): string[] {
  return files.flatMap(({ file, code }) =>
    [...tablesNamed(code)]
      .filter((table) => !owns(OWNERS[table] as string, file))
      .map((table) => `${file}: ${table}`),
  );
}

describe('tables', () => {
  const files = shipped(SRC).map((path) => ({
    file: relative(SRC, path),
    code: readFileSync(path, 'utf8'),
  }));

  const schema = readFileSync(join(SRC, 'db', 'schema.ts'), 'utf8');
  const body = schema.slice(schema.indexOf('export interface DatabaseSchema {'));
  /** Each table of `DatabaseSchema` and the name of its type. */
  const declared = [...body.slice(0, body.indexOf('\n}')).matchAll(/^ {2}(\w+): (\w+);/gm)];

  it('each have an owner', () => {
    expect(declared.length).toBeGreaterThan(20);
    expect(declared.map(([, table = '']) => table).filter((table) => !(table in OWNERS))).toEqual(
      [],
    );
  });

  it("each have their type declared in their owner's folder", () => {
    // The folder each type of db/schema.ts comes from; its own declarations are db/'s.
    const folderOf = new Map<string, string>();
    for (const [, names = '', from] of schema.matchAll(
      /import type \{([^}]*)\} from '\.\.\/(.+)\/tables\.js';/g,
    )) {
      for (const name of names.split(',')) folderOf.set(name.trim(), `${from}/`);
    }
    const misplaced = declared.flatMap(([, table = '', type = '']) => {
      const owner = OWNERS[table] ?? '';
      const folder = owner.endsWith('/') ? owner : `${dirname(owner)}/`;
      const found = folderOf.get(type) ?? 'db/';
      return found === folder ? [] : [`${table}: ${type} in ${found}, owned by ${owner}`];
    });
    expect(misplaced).toEqual([]);
  });

  it('are queried only by their owner', () => {
    expect(files.length).toBeGreaterThan(200);
    expect(violations(files)).toEqual([]);
  });

  it('the check fails on a query outside the owner', () => {
    const deliberate = {
      file: 'web/pages/new-page.ts',
      code: 'await db.selectFrom(\'connections\').selectAll().execute();\nawait sql`select 1 from "user_roles"`;',
    };
    expect(violations([deliberate])).toEqual([
      'web/pages/new-page.ts: connections',
      'web/pages/new-page.ts: user_roles',
    ]);
    expect(violations([{ ...deliberate, file: 'connections/store.ts' }])).toEqual([
      'connections/store.ts: user_roles',
    ]);
  });
});
