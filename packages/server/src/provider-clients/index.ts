export { providerClientRoutes } from './routes.js';
export {
  providerIdParams,
  providerItemSchema,
  providerListSchema,
  setProviderClientBody,
} from './schemas.js';
export { type ProviderItem, ProviderClientsService } from './service.js';
export { ProviderClientStore, type StoredProviderClient } from './store.js';
