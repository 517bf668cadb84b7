import { SCHEMA_RUN_ENV, startSchemaRun } from '../db/schema-run.js';

/**
 * Gives the run a key its workers name their PostgreSQL test schemas by (`SCHEMA_RUN_ENV`),
 * drops what runs that crashed left behind, and when the run ends drops the schemas its
 * workers kept for reuse (`test/db/schema-pool.ts`). Nothing to do without `TEST_DATABASE_URL`.
 */
export default async function setup(): Promise<(() => Promise<void>) | undefined> {
  const url = process.env.TEST_DATABASE_URL?.trim();
  if (!url) return undefined;
  const { run, end } = await startSchemaRun(url);
  process.env[SCHEMA_RUN_ENV] = run;
  return end;
}
