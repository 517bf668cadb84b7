import type { Kysely } from 'kysely';
import { rowLocksSupported } from '../db/locks.js';
import type { DatabaseSchema } from '../db/schema.js';

/** Ids per `in (...)` list: far below SQLite's and PostgreSQL's bound-parameter limits. */
const CHUNK = 500;

/**
 * Deletes the connection `rootId` and every connection below it (children, their children, ...)
 * in one transaction, and returns the deleted ids, the root first and then level by level; empty
 * when `rootId` does not exist. It checks no ownership: callers decide who may delete what.
 *
 * The tree is collected level by level inside the transaction rather than left to the foreign
 * key cascade, so the caller learns every id it removed. On PostgreSQL each level is locked
 * `for update` as it is read: a concurrent insert of a child under a locked row has to wait for
 * the parent's key-share lock and then fails its foreign key, so no row appears in the tree
 * unreported. Rows are deleted leaves first, which also holds where cascades are off.
 *
 * Given a transaction, it runs inside it and leaves commit or rollback to the caller.
 *
 * @example
 * const deleted = await deleteConnectionTree(db, connectionId); // ['c1', 'c2', 'c3']
 *
 * @throws the database's error when a query fails; nothing is deleted then.
 */
export async function deleteConnectionTree(
  db: Kysely<DatabaseSchema>,
  rootId: string,
): Promise<string[]> {
  if (db.isTransaction) return deleteTree(db, rootId);
  return db.transaction().execute((trx) => deleteTree(trx, rootId));
}

async function deleteTree(trx: Kysely<DatabaseSchema>, rootId: string): Promise<string[]> {
  const lock = rowLocksSupported(trx);
  const root = await trx
    .selectFrom('connections')
    .select('id')
    .where('id', '=', rootId)
    .$if(lock, (query) => query.forUpdate())
    .executeTakeFirst();
  if (!root) return [];

  const levels: string[][] = [[root.id]];
  const seen = new Set([root.id]);
  for (let parents = [root.id]; parents.length > 0; ) {
    const children: string[] = [];
    for (const chunk of chunks(parents)) {
      const rows = await trx
        .selectFrom('connections')
        .select('id')
        .where('parent_id', 'in', chunk)
        .orderBy('created_at')
        .orderBy('id')
        .$if(lock, (query) => query.forUpdate())
        .execute();
      for (const { id } of rows) {
        // A parent cycle cannot be created through the API, but must not loop forever either.
        if (seen.has(id)) continue;
        seen.add(id);
        children.push(id);
      }
    }
    if (children.length > 0) levels.push(children);
    parents = children;
  }

  for (const level of [...levels].reverse()) {
    for (const ids of chunks(level)) {
      await trx.deleteFrom('connections').where('id', 'in', ids).execute();
    }
  }
  return levels.flat();
}

/**
 * Row locks matter only where other connections write concurrently (PostgreSQL); SQLite has one
 * writer at a time and rejects `for update`. The adapter is reached through `getExecutor()`,
 * which kysely marks internal but is the only place that knows; `deleteConnectionTree` keeps its
 * `(db, rootId)` signature so no caller can forget to ask for the locks.
 */

function* chunks(ids: string[]): Generator<string[]> {
  for (let start = 0; start < ids.length; start += CHUNK) yield ids.slice(start, start + CHUNK);
}
