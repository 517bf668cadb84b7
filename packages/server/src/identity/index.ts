export { actingAs, actingPrincipal } from './acting-as.js';
export {
  type Authenticate,
  createAuthenticator,
  type SessionResolver,
  type Surface,
} from './authenticate.js';
export {
  createFailedCredentialLimit,
  DEFAULT_FAILED_CREDENTIAL_LIMIT,
  type FailedCredentialLimit,
} from './credential-limit.js';
export { grantAdmin, grantFirstAdmin } from './first-admin.js';
export {
  ADMIN_ROLE_ID,
  ANONYMOUS,
  type AnonymousPrincipal,
  type AuthenticatedPrincipal,
  isAdminRole,
  logIdentity,
  mayActFor,
  type Principal,
  principalKey,
  type ServiceAccountPrincipal,
  subjectId,
  type ToolPrincipal,
  TRUSTED,
  type TrustedPrincipal,
  type UserCredential,
  type UserPrincipal,
  userPrincipal,
} from './principal.js';
export {
  createTokenRepository,
  type SessionState,
  type TokenLookup,
  type TokenOwner,
  type TokenRepository,
} from './token-repository.js';
export { createUserRoleLookup } from './user-roles.js';
export { type Viewer, viewerOf } from './viewer.js';
