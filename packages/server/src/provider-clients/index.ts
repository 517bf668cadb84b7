export { providerClientRoutes } from './routes.js';
export {
  providerIdParams,
  providerItemSchema,
  providerListSchema,
  setProviderClientBody,
} from './schemas.js';
export { ProviderClientsService, type ProviderItem } from './service.js';
export { ProviderClientStore, type StoredProviderClient } from './store.js';
