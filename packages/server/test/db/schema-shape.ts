import type pg from 'pg';

/**
 * What a PostgreSQL test schema looks like, for `schema-pool.ts` to tell whether a test changed
 * it: the full shape (every table, column, constraint, ... as text, hashed), and a fingerprint
 * of its catalog rows that is much cheaper to read (issue 35: the full shape was most of a
 * reset's cost).
 */

/** A schema's shape, hashed, and the names a reset works on. */
export interface SchemaShape {
  shape: string;
  /** Its tables, by name. */
  tables: string[];
  /** Its sequences that have handed out a value. */
  sequences: string[];
}

/**
 * One line per part of a schema's shape, hashed: its relations, columns with their types and
 * defaults, constraints, indexes, triggers, policies, views, sequences, functions and types,
 * with the schema's own name taken out (it changes on every reuse).
 */
const SHAPE = `
with rels as (
  select c.oid, c.relname, c.relkind from pg_class c
  join pg_namespace n on n.oid = c.relnamespace where n.nspname = $1::text
), lines as (
  select format('rel %s %s %s %s %s', c.relname, c.relkind, c.relpersistence, c.relrowsecurity,
    c.reloptions) as line
    from pg_class c join rels using (oid)
  union all select format('col %s.%s %s %s %s %s %s %s', r.relname, a.attname,
    format_type(a.atttypid, a.atttypmod), a.attnotnull, a.attidentity, a.attgenerated,
    a.attcollation, pg_get_expr(d.adbin, d.adrelid))
    from pg_attribute a join rels r on r.oid = a.attrelid
    left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
    where a.attnum > 0 and not a.attisdropped
  union all select format('con %s %s %s', r.relname, c.conname, pg_get_constraintdef(c.oid))
    from pg_constraint c join rels r on r.oid = c.conrelid
  union all select format('idx %s', pg_get_indexdef(i.indexrelid))
    from pg_index i join rels r on r.oid = i.indrelid
  union all select format('trg %s', pg_get_triggerdef(t.oid))
    from pg_trigger t join rels r on r.oid = t.tgrelid where not t.tgisinternal
  union all select format('pol %s %s %s %s', r.relname, p.polname, p.polcmd,
    pg_get_expr(p.polqual, p.polrelid))
    from pg_policy p join rels r on r.oid = p.polrelid
  union all select format('view %s %s', r.relname, pg_get_viewdef(r.oid))
    from rels r where r.relkind in ('v', 'm')
  union all select format('seq %s %s %s %s %s %s %s', r.relname, s.seqtypid::regtype, s.seqstart,
    s.seqincrement, s.seqmin, s.seqmax, s.seqcycle)
    from pg_sequence s join rels r on r.oid = s.seqrelid
  union all select format('fn %s(%s) %s', p.proname, pg_get_function_identity_arguments(p.oid),
    md5(p.prosrc))
    from pg_proc p join pg_namespace n on n.oid = p.pronamespace where n.nspname = $1::text
  union all select format('type %s %s', t.typname, t.typtype)
    from pg_type t join pg_namespace n on n.oid = t.typnamespace
    where n.nspname = $1::text and t.typtype in ('d', 'e', 'm', 'r')
)
select
  md5(coalesce(string_agg(replace(line, $1::text || '.', ''), e'\\n' order by line), '')) as shape,
  coalesce((select array_agg(relname::text order by relname) from rels where relkind in ('r', 'p')),
    '{}') as tables,
  ${usedSequences('$1::text')} as sequences
from lines`;

/** The sequences of the schema named by the SQL expression `schema` that handed out a value. */
function usedSequences(schema: string): string {
  return `coalesce((select array_agg(sequencename::text order by sequencename) from pg_sequences
    where schemaname = ${schema} and last_value is not null), '{}')`;
}

/** Reads `schema`'s full shape ({@link SHAPE}). */
export async function readShape(client: pg.Client, schema: string): Promise<SchemaShape> {
  const { rows } = await client.query<SchemaShape>(SHAPE, [schema]);
  const row = rows[0];
  if (row === undefined) throw new Error(`no shape read for schema ${schema}`);
  return row;
}

/**
 * A fingerprint of the schema named `$1`'s catalog rows: every row {@link SHAPE} reads for it
 * (and its rules, rewritten views), each by its identity and `xmin`, the transaction that wrote
 * it last. Any change to the shape writes one of those rows (DDL inserts, updates or deletes
 * catalog rows; an `alter table` updates the table's `pg_class` row), while reading and writing
 * the tables' rows writes none, and vacuum and analyze update `pg_class` in place, keeping its
 * `xmin`. So a schema whose fingerprint is the one its last reset left has the shape it had
 * then. A different fingerprint proves nothing by itself (a truncate writes `pg_class` too):
 * the full shape decides.
 */
const FINGERPRINT = `
with ns as (select oid from pg_namespace where nspname = $1::text),
rels as (select array_agg(c.oid) as oids from pg_class c where c.relnamespace = (select oid from ns))
select md5(coalesce(string_agg(line, ',' order by line collate "C"), '')) as fingerprint,
  ${usedSequences('$1::text')} as sequences
from (
  select 'c' || oid || ':' || xmin as line from pg_class where relnamespace = (select oid from ns)
  union all select 'a' || attrelid || '.' || attnum || ':' || xmin from pg_attribute
    where attrelid = any((select oids from rels)::oid[])
  union all select 'd' || oid || ':' || xmin from pg_attrdef
    where adrelid = any((select oids from rels)::oid[])
  union all select 'k' || oid || ':' || xmin from pg_constraint
    where conrelid = any((select oids from rels)::oid[]) or connamespace = (select oid from ns)
  union all select 'i' || indexrelid || ':' || xmin from pg_index
    where indrelid = any((select oids from rels)::oid[])
  union all select 't' || oid || ':' || xmin from pg_trigger
    where tgrelid = any((select oids from rels)::oid[])
  union all select 'p' || oid || ':' || xmin from pg_policy
    where polrelid = any((select oids from rels)::oid[])
  union all select 'r' || oid || ':' || xmin from pg_rewrite
    where ev_class = any((select oids from rels)::oid[])
  union all select 's' || seqrelid || ':' || xmin from pg_sequence
    where seqrelid = any((select oids from rels)::oid[])
  union all select 'f' || oid || ':' || xmin from pg_proc where pronamespace = (select oid from ns)
  union all select 'y' || oid || ':' || xmin from pg_type where typnamespace = (select oid from ns)
) lines`;

/**
 * `schema`'s catalog fingerprint ({@link FINGERPRINT}) and its sequences that handed out a
 * value. A prepared statement: planned once for the connection.
 */
export async function readFingerprint(
  client: pg.Client,
  schema: string,
): Promise<{ fingerprint: string; sequences: string[] }> {
  const { rows } = await client.query<{ fingerprint: string; sequences: string[] }>({
    name: 'gateway-test-schema-fingerprint',
    text: FINGERPRINT,
    values: [schema],
  });
  const row = rows[0];
  if (row === undefined) throw new Error(`no fingerprint read for schema ${schema}`);
  return row;
}
