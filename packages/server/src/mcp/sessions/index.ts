export { LegacySessions, type LegacySessionsOptions } from './legacy-sessions.js';
