import type { ExpressionBuilder, Kysely } from 'kysely';
import type { DatabaseSchema } from '../db/index.js';
import { lockUser } from '../identity/user-store.js';
import { generateToken, hashToken, maskToken } from '../secrets/index.js';
import { type EndpointMode, endpointScopeOf, storedTools } from './scope.js';
import type { McpEndpointKind } from './tables.js';

/** What {@link createEndpoint} stores. */
export interface NewEndpoint {
  userId: string;
  name: string;
  description?: string | undefined;
  /** Patterns narrowing the user's role; none (or empty): the whole role. */
  tools?: readonly string[] | null | undefined;
  /** `tools` unless given. */
  mode?: EndpointMode | undefined;
  /** When it was created; now unless given (tests pin it to check ordering). */
  now?: Date;
}

/** A new endpoint with its raw token: the only time the token exists outside the client. */
export interface CreatedEndpoint {
  id: string;
  name: string;
  /** `gw_mcp_` and 40 base62 characters. Only its SHA-256 hash is stored. */
  token: string;
  createdAt: string;
  /** The patterns narrowing the role; null: the whole role. */
  tools: string[] | null;
  mode: EndpointMode;
}

/** The outcome of {@link createEndpoint}. */
export type CreateEndpointResult =
  | { ok: true; endpoint: CreatedEndpoint }
  | { ok: false; problem: 'user_not_found' | 'duplicate' };

/** An endpoint as listed: the token masked, never raw or hashed. */
export interface EndpointListItem {
  id: string;
  name: string;
  description: string | null;
  maskedToken: string;
  createdAt: string;
  lastUsedAt: string | null;
  /** `token` (a `gw_mcp_` token) or `oauth` (a client's sign-in). */
  kind: 'token' | 'oauth';
  /** The OAuth client of an `oauth` endpoint. */
  clientId: string | null;
  /** The patterns narrowing the role; null: the whole role. */
  tools: string[] | null;
  mode: EndpointMode;
}

/** Who an MCP token belongs to. */
export interface EndpointOwner {
  /** The endpoint's id. */
  id: string;
  /** The user the endpoint acts for. */
  userId: string;
}

/**
 * Makes a user an MCP endpoint with a fresh `gw_mcp_` token, storing only the token's hash and
 * masked form. Names are unique per user (checked in the same transaction as the insert).
 *
 * @example
 * const result = await createEndpoint(db, { userId, name: 'Claude Desktop' });
 * if (result.ok) show(result.endpoint.token); // once: it cannot be read back
 *
 * @throws the database's error when a query fails; nothing is stored then.
 */
export async function createEndpoint(
  db: Kysely<DatabaseSchema>,
  input: NewEndpoint,
): Promise<CreateEndpointResult> {
  return db.transaction().execute(async (trx): Promise<CreateEndpointResult> => {
    if (!(await lockUser(trx, input.userId))) return { ok: false, problem: 'user_not_found' };
    const duplicate = await trx
      .selectFrom('mcp_endpoints')
      .select('id')
      .where('user_id', '=', input.userId)
      .where('name', '=', input.name)
      .executeTakeFirst();
    if (duplicate) return { ok: false, problem: 'duplicate' };

    const token = generateToken('mcp');
    const tools = storedTools(input.tools);
    const mode = input.mode ?? 'tools';
    const endpoint: CreatedEndpoint = {
      id: crypto.randomUUID(),
      name: input.name,
      token,
      createdAt: (input.now ?? new Date()).toISOString(),
      tools: toolsOf(tools),
      mode,
    };
    await trx
      .insertInto('mcp_endpoints')
      .values({
        id: endpoint.id,
        user_id: input.userId,
        name: input.name,
        description: input.description ?? null,
        token_hash: hashToken(token),
        masked_token: maskToken(token),
        created_at: endpoint.createdAt,
        last_used_at: null,
        tools,
        mode,
      })
      .execute();
    return { ok: true, endpoint };
  });
}

/**
 * Makes the user an MCP endpoint of kind `oauth` for a client's sign-in (`mcp-oauth/`), inside the
 * caller's transaction: named after the client, with ` (2)`, ` (3)`... when the user already has
 * that name. It has no endpoint token: its `token_hash` is `oauth:<id>`, which no token's SHA-256
 * equals; OAuth access tokens reach it instead. Returns its id, or undefined when there is no such
 * user.
 *
 * @example
 * const endpointId = await createOAuthEndpoint(trx, { userId, clientName: 'Claude', clientId });
 */
export async function createOAuthEndpoint(
  trx: Kysely<DatabaseSchema>,
  input: { userId: string; clientName: string; clientId: string; now?: Date },
): Promise<string | undefined> {
  if (!(await lockUser(trx, input.userId))) return undefined;
  const taken = new Set(
    (
      await trx
        .selectFrom('mcp_endpoints')
        .select('name')
        .where('user_id', '=', input.userId)
        .execute()
    ).map((row) => row.name),
  );
  let name = input.clientName;
  for (let n = 2; taken.has(name); n++) name = `${input.clientName} (${n})`;
  const id = crypto.randomUUID();
  await trx
    .insertInto('mcp_endpoints')
    .values({
      id,
      user_id: input.userId,
      name,
      description: null,
      token_hash: `oauth:${id}`,
      masked_token: 'gw_oat_••••••••',
      created_at: (input.now ?? new Date()).toISOString(),
      last_used_at: null,
      kind: 'oauth',
      oauth_client_id: input.clientId,
    })
    .execute();
  return id;
}

/**
 * The user's MCP endpoints, oldest first (ties broken by id), tokens masked.
 *
 * @example
 * const endpoints = await listEndpoints(db, userId);
 */
export async function listEndpoints(
  db: Kysely<DatabaseSchema>,
  userId: string,
): Promise<EndpointListItem[]> {
  const rows = await db
    .selectFrom('mcp_endpoints')
    .select(LIST_COLUMNS)
    .where('user_id', '=', userId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map(listItem);
}

const LIST_COLUMNS = [
  'id',
  'name',
  'description',
  'masked_token',
  'created_at',
  'last_used_at',
  'kind',
  'oauth_client_id',
  'tools',
  'mode',
] as const;

function listItem(row: {
  id: string;
  name: string;
  description: string | null;
  masked_token: string;
  created_at: string;
  last_used_at: string | null;
  kind: McpEndpointKind;
  oauth_client_id: string | null;
  tools: string | null;
  mode: string;
}): EndpointListItem {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    maskedToken: row.masked_token,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    kind: row.kind,
    clientId: row.oauth_client_id,
    tools: toolsOf(row.tools),
    mode: endpointScopeOf(row).mode,
  };
}

/** The stored patterns as the API shows them: a copy, or null for the whole role. */
function toolsOf(stored: string | null): string[] | null {
  const { tools } = endpointScopeOf({ tools: stored, mode: 'tools' });
  return tools === null ? null : [...tools];
}

/** What {@link updateEndpoint} changes; a field left out stays as it is. */
export interface EndpointChange {
  /** New patterns; null or empty: the whole role. */
  tools?: readonly string[] | null | undefined;
  mode?: EndpointMode | undefined;
}

/**
 * Changes what the user's endpoint `id` serves. Returns the endpoint as listed, or undefined when
 * there is no such endpoint among the user's.
 *
 * @example
 * const updated = await updateEndpoint(db, userId, endpointId, { tools: ['notes.**'] });
 */
export async function updateEndpoint(
  db: Kysely<DatabaseSchema>,
  userId: string,
  id: string,
  change: EndpointChange,
): Promise<EndpointListItem | undefined> {
  const set = {
    ...(change.tools === undefined ? {} : { tools: storedTools(change.tools) }),
    ...(change.mode === undefined ? {} : { mode: change.mode }),
  };
  if (Object.keys(set).length > 0) {
    const result = await db
      .updateTable('mcp_endpoints')
      .set(set)
      .where('id', '=', id)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0) return undefined;
  }
  const row = await db
    .selectFrom('mcp_endpoints')
    .select(LIST_COLUMNS)
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return row === undefined ? undefined : listItem(row);
}

/**
 * Deletes the user's endpoint `id`; its token stops working at once. Returns `[id]`, or an empty
 * list when there is no such endpoint among the user's.
 *
 * @example
 * const deleted = await deleteEndpoint(db, userId, endpointId); // [endpointId]
 */
export async function deleteEndpoint(
  db: Kysely<DatabaseSchema>,
  userId: string,
  id: string,
): Promise<string[]> {
  const result = await db
    .deleteFrom('mcp_endpoints')
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return result.numDeletedRows > 0n ? [id] : [];
}

/** Endpoint `id` of user `userId` with its tool patterns and mode; undefined when not theirs. */
export async function findUserEndpoint(db: Kysely<DatabaseSchema>, id: string, userId: string) {
  return db
    .selectFrom('mcp_endpoints')
    .select(['id', 'tools', 'mode'])
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .executeTakeFirst();
}

/**
 * Deletes the `oauth` endpoint `id`, a grant to an MCP client, and with it (cascade) every token
 * it has. Other kinds of endpoint are left alone.
 */
export async function deleteOAuthEndpoint(db: Kysely<DatabaseSchema>, id: string): Promise<void> {
  await db.deleteFrom('mcp_endpoints').where('id', '=', id).where('kind', '=', 'oauth').execute();
}

/**
 * The endpoints granted to the `mcp_oauth_clients` row of the enclosing query, as a subquery for
 * `exists`: a registration still in use is kept.
 *
 * @example
 * // mcp-oauth/clients.ts: a sweep keeps the registrations in use
 * .where((eb) => eb.not(eb.exists(endpointsOfClient(eb))))
 */
export function endpointsOfClient(eb: ExpressionBuilder<DatabaseSchema, 'mcp_oauth_clients'>) {
  return eb
    .selectFrom('mcp_endpoints')
    .select('mcp_endpoints.id')
    .whereRef('mcp_endpoints.oauth_client_id', '=', 'mcp_oauth_clients.client_id');
}
