import type { Env, PasswordEmails, SignupMode } from '../config/env.js';
import * as envVars from '../config/env.js';

/** `createGateway({ signup })`: each field beats its environment variable. */
export interface SignupOptions {
  /** `GATEWAY_SIGNUP`: `open` (default), `invite` or `closed`. */
  mode?: SignupMode;
  /** `GATEWAY_SIGNUP_EMAIL_DOMAINS`: the only email domains new accounts may have. */
  emailDomains?: readonly string[];
  /** `GATEWAY_ADMIN_EMAILS`: addresses made admin at creation (turns first-user-admin off). */
  adminEmails?: readonly string[];
  /** `GATEWAY_PASSWORD_EMAILS`: how a password sign-up's (unverifiable) address counts. */
  passwordEmails?: PasswordEmails;
}

/** Who may create an account on this gateway, settled at start. */
export interface SignupPolicy {
  readonly mode: SignupMode;
  /** Lower case; undefined: any domain. */
  readonly emailDomains: readonly string[] | undefined;
  /** Lower case; undefined: none, and the first user becomes admin. */
  readonly adminEmails: readonly string[] | undefined;
  /** Whether a password sign-up's address counts as verified (`trusted`) or not. */
  readonly passwordEmails: PasswordEmails;
}

/**
 * The sign-up policy from `options`, else the environment, checked the same way either way.
 *
 * @throws Error naming the setting when a value is not valid.
 * @example
 * const policy = signupPolicy(process.env, { mode: 'invite' });
 */
export function signupPolicy(env: Env, options: SignupOptions = {}): SignupPolicy {
  for (const [field, entries] of [
    ['emailDomains', options.emailDomains],
    ['adminEmails', options.adminEmails],
  ] as const) {
    // An empty list would be read as none given: no restriction, the opposite of what it says.
    if (entries?.every((entry) => entry.replaceAll(',', '').trim() === '')) {
      throw new Error(`createGateway({ signup: { ${field}: [] } }) names nothing; leave it out`);
    }
  }
  const mode =
    options.mode === undefined
      ? envVars.signupMode(env)
      : envVars.signupMode({ GATEWAY_SIGNUP: options.mode });
  const emailDomains =
    options.emailDomains === undefined
      ? envVars.signupEmailDomains(env)
      : envVars.signupEmailDomains({
          GATEWAY_SIGNUP_EMAIL_DOMAINS: options.emailDomains.join(','),
        });
  const adminEmails =
    options.adminEmails === undefined
      ? envVars.adminEmails(env)
      : envVars.adminEmails({ GATEWAY_ADMIN_EMAILS: options.adminEmails.join(',') });
  const passwordEmails =
    options.passwordEmails === undefined
      ? envVars.passwordEmails(env)
      : envVars.passwordEmails({ GATEWAY_PASSWORD_EMAILS: options.passwordEmails });
  return Object.freeze({ mode, emailDomains, adminEmails, passwordEmails });
}

/** Why a new account was refused, as better-auth error codes (they travel on OAuth redirects). */
export type SignupRefusal =
  | 'signup_closed'
  | 'signup_invite_required'
  | 'signup_email_domain'
  | 'invite_invalid'
  | 'invite_email_mismatch'
  | 'signup_email_unverified';

/** Whether `email` is one of the `GATEWAY_ADMIN_EMAILS`. */
export function isAdminEmail(policy: SignupPolicy, email: string): boolean {
  return policy.adminEmails?.includes(email.trim().toLowerCase()) ?? false;
}

/** Whether `email` is at one of the allowed domains (any, when none are set). */
export function domainAllowed(policy: SignupPolicy, email: string): boolean {
  if (policy.emailDomains === undefined) return true;
  const at = email.lastIndexOf('@');
  return (
    at > 0 &&
    policy.emailDomains.includes(
      email
        .slice(at + 1)
        .trim()
        .toLowerCase(),
    )
  );
}

function domainList(domains: readonly string[]): string {
  if (domains.length === 1) return domains[0] ?? '';
  return `${domains.slice(0, -1).join(', ')} or ${domains.at(-1)}`;
}

/**
 * The sentence shown for a refusal, written for the person signing up. Pages rebuild it from the
 * code (never from text carried in a URL), so a crafted link cannot put words on a gateway page.
 *
 * @example
 * signupRefusalText(policy, 'signup_closed'); // 'Sign-up is closed on this gateway; ...'
 */
export function signupRefusalText(policy: SignupPolicy, code: SignupRefusal): string {
  switch (code) {
    case 'signup_closed':
      return 'Sign-up is closed on this gateway; ask an admin for access';
    case 'signup_invite_required':
      return 'Sign-up needs an invite link from an admin';
    case 'signup_email_domain':
      return `Sign-up is open to addresses at ${domainList(policy.emailDomains ?? [])} only`;
    case 'invite_invalid':
      return 'This invite link is no longer valid (used, revoked or expired); ask an admin for a new one';
    case 'invite_email_mismatch':
      return 'This invite is for another email address; sign up with the address it was made for';
    case 'signup_email_unverified':
      return 'Your sign-in provider has not verified this email address, and sign-up here needs a verified one; verify it with the provider and sign in again, or ask an admin for access';
  }
}

/** `code` when it is one of the {@link SignupRefusal} codes. */
export function asSignupRefusal(code: string | undefined): SignupRefusal | undefined {
  switch (code) {
    case 'signup_closed':
    case 'signup_invite_required':
    case 'signup_email_domain':
    case 'invite_invalid':
    case 'invite_email_mismatch':
    case 'signup_email_unverified':
      return code;
    default:
      return undefined;
  }
}
