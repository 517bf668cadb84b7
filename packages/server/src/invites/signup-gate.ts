import { APIError } from '@better-auth/core/error';
import { ADMIN_ROLE_ID, grantFirstAdmin } from '../identity/index.js';
import type { GatewayServices } from '../services.js';
import { inviteFromCookies } from './invite-cookie.js';
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
 * A refusal is an `APIError` 403 whose code is a {@link SignupRefusal}: the JSON API answers it in
 * the gateway's error body, and the OAuth callback redirects with it to the page that started
 * the sign-in, which words it.
 *
 * @example
 * databaseHooks: { user: { create: signupGate(services) } }
 */
export function signupGate(services: Pick<GatewayServices, 'database' | 'signup' | 'logger'>) {
  const { db } = services.database;
  const policy = services.signup;
  // Which invite a request used, from `before` to `after` (both get the same context object).
  const usedInvites = new WeakMap<object, string>();
  const refuse = (code: SignupRefusal) =>
    new APIError('FORBIDDEN', { code, message: signupRefusalText(policy, code) });

  return {
    async before(user: { email?: unknown }, context: HookContext): Promise<void> {
      const email = typeof user.email === 'string' ? user.email.trim().toLowerCase() : '';
      // The operator named these addresses: they may always sign up, so a closed or invite-only
      // gateway can still get its first admin.
      if (isAdminEmail(policy, email)) return;
      if (policy.mode === 'closed') throw refuse('signup_closed');
      if (!domainAllowed(policy, email)) throw refuse('signup_email_domain');
      const cookies = context?.headers?.get('cookie') ?? context?.request?.headers.get('cookie');
      const token = inviteFromCookies(cookies);
      if (token === undefined) {
        if (policy.mode === 'invite') throw refuse('signup_invite_required');
        return;
      }
      // Used in the same step that admits the account: a second sign-up with it finds it used.
      const used = await consumeInvite(db, token, email);
      if (used.ok) {
        if (context) usedInvites.set(context, used.id);
        return;
      }
      // Open sign-up needs no invite; a stale one in the browser must not get in the way.
      if (policy.mode === 'open') return;
      throw refuse(used.reason === 'email_mismatch' ? 'invite_email_mismatch' : 'invite_invalid');
    },

    async after(user: { id: string; email: string }, context: HookContext): Promise<void> {
      const inviteId = context ? usedInvites.get(context) : undefined;
      if (inviteId !== undefined) await recordInviteUser(db, inviteId, user.id);
      if (isAdminEmail(policy, user.email)) {
        await db
          .insertInto('user_roles')
          .values({
            user_id: user.id,
            role_id: ADMIN_ROLE_ID,
            assigned_at: new Date().toISOString(),
          })
          .onConflict((oc) => oc.column('user_id').doUpdateSet({ role_id: ADMIN_ROLE_ID }))
          .execute();
        services.logger.info('admin email made admin', { userId: user.id });
        return;
      }
      if (policy.adminEmails === undefined && (await grantFirstAdmin(db, user.id))) {
        services.logger.info('first user made admin', { userId: user.id });
      }
    },
  };
}
