export { userRoutes } from './routes.js';
export { type UserItem, userItemSchema, userListSchema } from './schemas.js';
