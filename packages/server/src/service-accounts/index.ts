export { serviceAccountRoutes } from './routes.js';
export {
  createServiceAccountBody,
  serviceAccountCreatedSchema,
  serviceAccountItemSchema,
  serviceAccountListSchema,
} from './schemas.js';
export {
  type CreatedServiceAccount,
  createServiceAccount,
  deleteServiceAccount,
  listServiceAccounts,
  serviceAccountRole,
} from './store.js';
