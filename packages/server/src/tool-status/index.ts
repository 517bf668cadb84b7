export { toolStatusRoutes } from './routes.js';
export {
  type ProviderStatus,
  providerStatusSchema,
  type ToolStatus,
  toolStatusSchema,
} from './schemas.js';
export { providerName, toolStatus } from './tool-status.js';
