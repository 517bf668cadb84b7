export {
  type DatabaseDialect,
  DEFAULT_SQLITE_FILE,
  type GatewayDatabase,
  openDatabase,
} from './database.js';
export { migrate } from './migrate.js';
export type { DatabaseSchema, SchemaStateTable } from './schema.js';
export { readSchemaState, type SchemaState } from './schema-state.js';
