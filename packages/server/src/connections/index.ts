export { connectionRoutes } from './routes.js';
export {
  type ConnectionListItem,
  type CreateConnectionProblem,
  type CreateConnectionResult,
  createConnection,
  deleteUserConnection,
  findEncryptedSecret,
  listUserConnections,
  type NewConnection,
} from './store.js';
