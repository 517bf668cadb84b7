import { APIError } from '@better-auth/core/error';
import type { GatewayDatabase } from '../db/database.js';
import type { ServerLogger } from '../http/logger.js';
import { grantAdmin, grantFirstAdmin } from '../identity/index.js';
import { inviteFromCookies } from './invite-cookie.js';
import type { SignupPolicy } from './policy.js';
import { domainAllowed, isAdminEmail, type SignupRefusal, signupRefusalText } from './policy.js';
import { consumeInvite, recordInviteUser } from './store.js';

/** What better-auth hands a database hook about the request behind it (null outside one). */
type HookContext = { headers?: Headers | undefined; request?: Request | undefined } | null;

/**
 * better-auth's `databaseHooks.user.create` for the gateway: every new account, by any path
 * (email sign-up, the CLI sign-in page, a first OAuth sign-in), passes `before`, which applies
 * the sign-up policy and uses the request's invite; `after` makes the account admin when its
 * address is one of `GATEWAY_ADMIN_EMAILS`, else (only when none are set) when it is the first.
 *
 * An address counts for the admin list, the domain list and an invite made for it only when it
 * is verified: an OAuth sign-up's provider said so (`email_verified: true`, GitHub's verified
 * primary address, ...), or it is a password sign-up and `GATEWAY_PASSWORD_EMAILS` is `trusted`.
 * Anyone can type any address at an identity provider that lets users edit their email. How the
 * account is being made comes from better-auth's `validateUserInfo` ({@link noteSignupMethod}),
 * which runs just before the hook for the same request.
 *
 * A refusal is an `APIError` 403 whose code is a {@link SignupRefusal}: the JSON API answers it in
 * the gateway's error body, and the OAuth callback redirects with it to the page that started
 * the sign-in, which words it.
 *
 * @example
 * const gate = signupGate(services);
 * databaseHooks: { user: { create: { before: gate.before, after: gate.after } } }
 */
export function signupGate(services: {
  database: GatewayDatabase;
  signup: SignupPolicy;
  logger: ServerLogger;
}) {
  const { db } = services.database;
  const policy = services.signup;
  // Which invite a request used, from `before` to `after` (both get the same context object).
  const usedInvites = new WeakMap<object, string>();
  // How the account of a request is being made (`email-password`, `oauth`), from better-auth's
  // `validateUserInfo` to the hooks (the same endpoint context object reaches both).
  const methods = new WeakMap<object, string>();
  const refuse = (code: SignupRefusal) =>
    new APIError('FORBIDDEN', { code, message: signupRefusalText(policy, code) });
  const counts = (user: { emailVerified?: unknown }, context: HookContext): boolean => {
    if (user.emailVerified === true) return true;
    const method = context ? methods.get(context) : undefined;
    return method === 'email-password' && policy.passwordEmails === 'trusted';
  };

  return {
    /** Records how the account of `context`'s request is being made (`source.method`). */
    noteSignupMethod(context: object, method: string): void {
      methods.set(context, method);
    },

    async before(
      user: { email?: unknown; emailVerified?: unknown },
      context: HookContext,
    ): Promise<void> {
      const email = typeof user.email === 'string' ? user.email.trim().toLowerCase() : '';
      const verified = counts(user, context);
      const admin = isAdminEmail(policy, email);
      // The operator named these addresses: they may always sign up, so a closed or invite-only
      // gateway can still get its first admin; but only someone shown to own the address.
      if (admin && verified) return;
      if (policy.mode === 'closed') {
        throw refuse(admin ? 'signup_email_unverified' : 'signup_closed');
      }
      if (!domainAllowed(policy, email)) throw refuse('signup_email_domain');
      if (policy.emailDomains !== undefined && !verified) throw refuse('signup_email_unverified');
      const cookies = context?.headers?.get('cookie') ?? context?.request?.headers.get('cookie');
      const token = inviteFromCookies(cookies);
      if (token === undefined) {
        if (policy.mode === 'invite') throw refuse('signup_invite_required');
        return;
      }
      // Used in the same step that admits the account: a second sign-up with it finds it used.
      const used = await consumeInvite(db, token, email, verified);
      if (used.ok) {
        if (context) usedInvites.set(context, used.id);
        return;
      }
      // Open sign-up needs no invite; a stale one in the browser must not get in the way.
      if (policy.mode === 'open') return;
      throw refuse(inviteRefusal(used.reason));
    },

    async after(
      user: { id: string; email: string; emailVerified?: unknown },
      context: HookContext,
    ): Promise<void> {
      const inviteId = context ? usedInvites.get(context) : undefined;
      if (inviteId !== undefined) await recordInviteUser(db, inviteId, user.id);
      await makeAdminIfDue(services, user, counts(user, context));
    },
  };
}

/** Why an invite could not be used, as the sign-up refusal that words it. */
function inviteRefusal(reason: 'invalid' | 'email_mismatch' | 'email_unverified'): SignupRefusal {
  return reason === 'email_mismatch'
    ? 'invite_email_mismatch'
    : reason === 'email_unverified'
      ? 'signup_email_unverified'
      : 'invite_invalid';
}

/**
 * Makes a new account admin when its address is one of `GATEWAY_ADMIN_EMAILS` and `verified`,
 * else (only when none are set) when it is the first.
 */
async function makeAdminIfDue(
  services: { database: GatewayDatabase; signup: SignupPolicy; logger: ServerLogger },
  user: { id: string; email: string },
  verified: boolean,
): Promise<void> {
  const { db } = services.database;
  if (isAdminEmail(services.signup, user.email)) {
    if (!verified) {
      // Not the operator's named admin until shown to own the address; nor the "first
      // user", which the admin list turned off.
      services.logger.warn('an admin email signed up unverified and was not made admin', {
        userId: user.id,
      });
      return;
    }
    await grantAdmin(db, user.id);
    services.logger.info('admin email made admin', { userId: user.id });
    return;
  }
  if (services.signup.adminEmails === undefined && (await grantFirstAdmin(db, user.id))) {
    services.logger.info('first user made admin', { userId: user.id });
  }
}
