export type { UpstreamHealth } from './circuit-breaker.js';
export { UpstreamHttpError } from './http-error.js';
export { oauthToolId } from './oauth-hooks.js';
export {
  type StdioUpstreamConfig,
  stdioUpstreamSchema,
  type UpstreamAuth,
  upstreamAuthSchema,
} from './target.js';
export { pathSegmentsOf } from './tool-names.js';
export {
  type RegisterUpstreamInput,
  UpstreamService,
  type UpstreamServiceOptions,
  type UpstreamStatus,
} from './upstream-service.js';
export { checkUpstreamUrl, type UrlPolicy } from './url-policy.js';
