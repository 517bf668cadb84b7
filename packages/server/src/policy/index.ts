export {
  ADMIN_ROLE_ID,
  PolicyService,
  type Resolution,
  type ResolveSubject,
} from './policy-service.js';
export { policyRoutes } from './routes.js';
