export { teamConnectionRoutes } from './routes.js';
export {
  createTeamConnectionBody,
  teamConnectionCreatedSchema,
  teamConnectionItemSchema,
  teamConnectionListSchema,
} from './schemas.js';
export {
  createTeamConnection,
  deleteTeamConnection,
  listTeamConnections,
  type NewTeamConnection,
} from './store.js';
