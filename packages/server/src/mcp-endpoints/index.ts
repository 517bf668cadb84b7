export { type EndpointScopeListener, EndpointScopes } from './endpoint-scopes.js';
export {
  ENDPOINT_MODES,
  type EndpointMode,
  type EndpointScope,
  endpointScopeOf,
  NOTHING,
  WHOLE_ROLE,
} from './scope.js';
export {
  type CreatedEndpoint,
  type CreateEndpointResult,
  createEndpoint,
  createOAuthEndpoint,
  deleteEndpoint,
  deleteOAuthEndpoint,
  type EndpointChange,
  type EndpointListItem,
  type EndpointOwner,
  endpointsOfClient,
  findUserEndpoint,
  listEndpoints,
  type NewEndpoint,
  updateEndpoint,
} from './store.js';
