export { INVITE_COOKIE, inviteCookie, inviteFromCookies } from './invite-cookie.js';
export {
  asSignupRefusal,
  domainAllowed,
  isAdminEmail,
  type SignupOptions,
  type SignupPolicy,
  type SignupRefusal,
  signupPolicy,
  signupRefusalText,
} from './policy.js';
export { signupGate } from './signup-gate.js';
export { isLoopback, openSignupWarning } from './start-warning.js';
export {
  consumeInvite,
  createInvite,
  findInvite,
  type Invite,
  type InviteStatus,
  listInvites,
  revokeInvite,
} from './store.js';
