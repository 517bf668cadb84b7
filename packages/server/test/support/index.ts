/**
 * Test helpers of the server for the workspace's other packages, imported as
 * `@gateway/server/testing` (a vitest alias and a tsconfig path; not published). A gateway made
 * with them takes part in the leak check of `leak-check.setup.ts`.
 */

export type { ServedGateway } from '../../src/gateway.js';
export {
  loginAtProvider,
  type OidcProviderServer,
  startOidcProvider,
} from '../auth/oidc-provider-server.js';
export { revokeLinkedGrant } from '../auth/revoke-grant.js';
export { testSigningKey } from '../auth/signing-key.js';
export { startFakeUpstream } from '../upstream/fake-upstream.js';
export { startUpstreamAuthorizationServer } from '../upstream-oauth/authorization-server.js';
export { startProtectedUpstream } from '../upstream-oauth/protected-upstream.js';
export { freePort } from './free-port.js';
export { captureLogLine, rememberSecret } from './known-secrets.js';
export { createLeakCheckedGateway } from './leak-checked-gateway.js';
