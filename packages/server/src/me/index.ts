export { meRoutes } from './routes.js';
export {
  type Me,
  meSchema,
  meServiceAccountSchema,
  meServiceSchema,
  meUserSchema,
} from './schemas.js';
