export { readOverview } from './overview.js';
export { overviewRoutes } from './routes.js';
export { type Overview, overviewSchema } from './schemas.js';
