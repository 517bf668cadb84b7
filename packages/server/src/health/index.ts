export { DatabaseHealth, type DatabaseState } from './database-health.js';
export { type NotReady, Readiness, type ReadinessCheck } from './readiness.js';
export {
  DATABASE_RETRY_AFTER_SECONDS,
  databaseReadiness,
  databaseUnavailable,
  mountHealth,
} from './routes.js';
