export { mcpEndpointRoutes } from './routes.js';
export {
  type CreatedEndpoint,
  type CreateEndpointResult,
  createEndpoint,
  createOAuthEndpoint,
  deleteEndpoint,
  type EndpointListItem,
  type EndpointOwner,
  listEndpoints,
  type NewEndpoint,
} from './store.js';
