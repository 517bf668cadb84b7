import { type ColumnDefinitionBuilder, type Kysely, sql } from 'kysely';
import type { DatabaseDialect } from '../database.js';
import type { GatewayMigration } from './migration.js';

/**
 * The first schema: better-auth's core tables, then the gateway's own.
 *
 * The better-auth tables reproduce, column for column and type for type, what better-auth 1.7's
 * own kysely migration (`getMigrations`) creates, so better-auth finds nothing to migrate and
 * reads and writes them through its kysely adapter as if it had made them. The one addition is
 * `emailVerified`'s default of false, for rows the gateway inserts itself (tests, seeds).
 *
 * The gateway's tables store timestamps as ISO 8601 text and ids as UUID text on both engines,
 * so a value reads back identically from either.
 */
export const initial: GatewayMigration = {
  async up(db, dialect) {
    await createBetterAuthTables(db, dialect);
    await createGatewayTables(db);
    await seedRoles(db);
  },
};

async function createBetterAuthTables(db: Kysely<unknown>, dialect: DatabaseDialect) {
  const postgres = dialect === 'postgres';
  // better-auth's SQLite adapter stores dates as ISO text in a `date` column and booleans as 0/1.
  const date = postgres ? 'timestamptz' : 'date';
  const boolean = postgres ? 'boolean' : 'integer';
  const required = (col: ColumnDefinitionBuilder) => col.notNull();
  // better-auth gives `createdAt`-style columns a database default on PostgreSQL only.
  const requiredNow = (col: ColumnDefinitionBuilder) =>
    postgres ? col.defaultTo(sql`CURRENT_TIMESTAMP`).notNull() : col.notNull();
  const id = (col: ColumnDefinitionBuilder) => col.notNull().primaryKey();
  const userId = (col: ColumnDefinitionBuilder) =>
    col.notNull().references('user.id').onDelete('cascade');

  await db.schema
    .createTable('user')
    .addColumn('id', 'text', id)
    .addColumn('name', 'text', required)
    .addColumn('email', 'text', (col) => col.notNull().unique())
    .addColumn('emailVerified', boolean, (col) => col.notNull().defaultTo(postgres ? false : 0))
    .addColumn('image', 'text')
    .addColumn('createdAt', date, requiredNow)
    .addColumn('updatedAt', date, requiredNow)
    .execute();

  await db.schema
    .createTable('session')
    .addColumn('id', 'text', id)
    .addColumn('expiresAt', date, required)
    .addColumn('token', 'text', (col) => col.notNull().unique())
    .addColumn('createdAt', date, requiredNow)
    .addColumn('updatedAt', date, required)
    .addColumn('ipAddress', 'text')
    .addColumn('userAgent', 'text')
    .addColumn('userId', 'text', userId)
    .execute();

  await db.schema
    .createTable('account')
    .addColumn('id', 'text', id)
    .addColumn('accountId', 'text', required)
    .addColumn('providerId', 'text', required)
    .addColumn('userId', 'text', userId)
    .addColumn('accessToken', 'text')
    .addColumn('refreshToken', 'text')
    .addColumn('idToken', 'text')
    .addColumn('accessTokenExpiresAt', date)
    .addColumn('refreshTokenExpiresAt', date)
    .addColumn('scope', 'text')
    .addColumn('password', 'text')
    .addColumn('createdAt', date, requiredNow)
    .addColumn('updatedAt', date, required)
    .execute();

  await db.schema
    .createTable('verification')
    .addColumn('id', 'text', id)
    .addColumn('identifier', 'text', required)
    .addColumn('value', 'text', required)
    .addColumn('expiresAt', date, required)
    .addColumn('createdAt', date, requiredNow)
    .addColumn('updatedAt', date, requiredNow)
    .execute();

  // Index names as better-auth generates them, so its schema check sees them as present.
  await db.schema.createIndex('session_userId_idx').on('session').column('userId').execute();
  await db.schema.createIndex('account_userId_idx').on('account').column('userId').execute();
  await db.schema
    .createIndex('verification_identifier_idx')
    .on('verification')
    .column('identifier')
    .execute();
}

async function createGatewayTables(db: Kysely<unknown>) {
  await db.schema
    .createTable('roles')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('patterns', 'text', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('updated_at', 'text', (col) => col.notNull())
    .execute();

  // A role still assigned to someone cannot be deleted (no cascade): silently demoting its users
  // to the default role is a decision for the policy routes, not a side effect of a delete.
  await db.schema
    .createTable('user_roles')
    .addColumn('user_id', 'text', (col) =>
      col.primaryKey().references('user.id').onDelete('cascade'),
    )
    .addColumn('role_id', 'text', (col) => col.notNull().references('roles.id'))
    .addColumn('assigned_at', 'text', (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex('user_roles_role_id_idx')
    .on('user_roles')
    .column('role_id')
    .execute();

  await db.schema
    .createTable('connections')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('user_id', 'text', (col) => col.notNull().references('user.id').onDelete('cascade'))
    .addColumn('owner', 'text', (col) =>
      col.notNull().defaultTo('user').check(sql`owner in ('user', 'team')`),
    )
    .addColumn('tool_id', 'text', (col) => col.notNull())
    .addColumn('instance_name', 'text', (col) => col.notNull())
    .addColumn('description', 'text')
    .addColumn('encrypted_secret', 'text', (col) => col.notNull())
    .addColumn('masked_secret', 'text', (col) => col.notNull())
    .addColumn('workspace_id', 'text')
    .addColumn('parent_id', 'text', (col) => col.references('connections.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('updated_at', 'text', (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex('connections_user_id_tool_id_idx')
    .on('connections')
    .columns(['user_id', 'tool_id'])
    .execute();
  // Team connections are looked up by tool across all users during token vending.
  await db.schema
    .createIndex('connections_owner_tool_id_idx')
    .on('connections')
    .columns(['owner', 'tool_id'])
    .execute();
  // Tree walks (and the cascade) find children by parent.
  await db.schema
    .createIndex('connections_parent_id_idx')
    .on('connections')
    .column('parent_id')
    .execute();

  await db.schema
    .createTable('mcp_endpoints')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('user_id', 'text', (col) => col.notNull().references('user.id').onDelete('cascade'))
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('description', 'text')
    .addColumn('token_hash', 'text', (col) => col.notNull().unique())
    .addColumn('masked_token', 'text', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('last_used_at', 'text')
    .execute();
  await db.schema
    .createIndex('mcp_endpoints_user_id_idx')
    .on('mcp_endpoints')
    .column('user_id')
    .execute();

  await db.schema
    .createTable('service_accounts')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('role_id', 'text', (col) => col.notNull().references('roles.id'))
    .addColumn('created_by', 'text', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .execute();

  await db.schema
    .createTable('api_tokens')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('kind', 'text', (col) =>
      col.notNull().check(sql`kind in ('cli', 'service_account')`),
    )
    .addColumn('user_id', 'text', (col) => col.notNull().references('user.id').onDelete('cascade'))
    .addColumn('service_account_id', 'text', (col) =>
      col.references('service_accounts.id').onDelete('cascade'),
    )
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('token_hash', 'text', (col) => col.notNull().unique())
    .addColumn('masked_token', 'text', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('last_used_at', 'text')
    .addColumn('expires_at', 'text')
    .addColumn('revoked_at', 'text')
    .execute();
  await db.schema
    .createIndex('api_tokens_user_id_idx')
    .on('api_tokens')
    .column('user_id')
    .execute();
  await db.schema
    .createIndex('api_tokens_service_account_id_idx')
    .on('api_tokens')
    .column('service_account_id')
    .execute();

  await db.schema
    .createTable('registry_sources')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('type', 'text', (col) => col.notNull())
    .addColumn('namespace', 'text', (col) => col.notNull().unique())
    .addColumn('plugin_id', 'text', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .execute();

  // No foreign key to `user`: the audit trail outlives the users it describes.
  await db.schema
    .createTable('executions')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('user_id', 'text', (col) => col.notNull())
    .addColumn('tool_path', 'text', (col) => col.notNull())
    .addColumn('started_at', 'text', (col) => col.notNull())
    .addColumn('duration_ms', 'integer')
    .addColumn('outcome', 'text', (col) =>
      col.check(sql`outcome in ('ok', 'error', 'denied', 'timeout')`),
    )
    .addColumn('approval', 'text')
    .addColumn('approved_by', 'text')
    .addColumn('arguments', 'text', (col) => col.notNull())
    .addColumn('error', 'text')
    .execute();
  await db.schema
    .createIndex('executions_user_id_started_at_idx')
    .on('executions')
    .columns(['user_id', 'started_at'])
    .execute();

  await db.schema
    .createTable('approvals')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('execution_id', 'text', (col) => col.notNull())
    .addColumn('user_id', 'text', (col) => col.notNull())
    .addColumn('tool_path', 'text', (col) => col.notNull())
    .addColumn('message', 'text', (col) => col.notNull())
    .addColumn('args', 'text', (col) => col.notNull())
    .addColumn('status', 'text', (col) =>
      col.notNull().check(sql`status in ('pending', 'approved', 'denied', 'expired')`),
    )
    .addColumn('decided_by', 'text')
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('decided_at', 'text')
    .addColumn('expires_at', 'text', (col) => col.notNull())
    .execute();
  // The web app and `gateway approvals` list a user's pending requests.
  await db.schema
    .createIndex('approvals_user_id_status_idx')
    .on('approvals')
    .columns(['user_id', 'status'])
    .execute();
  await db.schema
    .createIndex('approvals_execution_id_idx')
    .on('approvals')
    .column('execution_id')
    .execute();
}

async function seedRoles(db: Kysely<unknown>) {
  const now = new Date().toISOString();
  await db
    .withTables<{
      roles: { id: string; name: string; patterns: string; created_at: string; updated_at: string };
    }>()
    .insertInto('roles')
    .values([
      { id: 'member', name: 'Member', patterns: '[]', created_at: now, updated_at: now },
      { id: 'admin', name: 'Admin', patterns: '["**"]', created_at: now, updated_at: now },
    ])
    .execute();
}
