export {
  createTeamConnection,
  deleteTeamConnection,
  listTeamConnections,
  type NewTeamConnection,
} from '../connections/team-store.js';
export { teamConnectionRoutes } from './routes.js';
export {
  createTeamConnectionBody,
  teamConnectionCreatedSchema,
  teamConnectionItemSchema,
  teamConnectionListSchema,
} from './schemas.js';
