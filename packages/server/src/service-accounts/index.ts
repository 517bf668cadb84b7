export { serviceAccountRoutes } from './routes.js';
export {
  createServiceAccountBody,
  serviceAccountCreatedSchema,
  serviceAccountItemSchema,
  serviceAccountListSchema,
} from './schemas.js';
