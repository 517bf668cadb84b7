export { ProviderClientsService, type ProviderItem } from './service.js';
export { ProviderClientStore, type StoredProviderClient } from './store.js';
