import type { GatewayDatabase } from '../../db/database.js';
import type { AppContext } from '../../http/app-env.js';
import { anyUserExists, countExistingEmails } from '../../identity/user-store.js';
import {
  findInvite,
  type Invite,
  inviteCookie,
  inviteFromCookies,
  signupRefusalText,
} from '../../invites/index.js';
import type { SignupPolicy } from '../../invites/policy.js';
import { type Html, html } from '../html.js';

/** What the sign-up page shows about who may sign up, for one browser. */
export interface SignUpState {
  /** The invite this browser carries (from the `/sign-up?invite=` link), when still usable. */
  invite: Invite | undefined;
  /** Whether to show the form and provider buttons at all. */
  showForm: boolean;
  /** The notices above the form: the invite in use, the policy, the first-admin rule. */
  notices: Html;
}

/**
 * Takes the token of a `/sign-up?invite=` link into the invite cookie, which carries it to the
 * account's creation by whichever way it happens. Answers whether the link is usable; the page
 * then drops the token from its address.
 */
export async function takeInvite(
  c: AppContext,
  services: { database: GatewayDatabase; baseUrl: string },
  token: string,
): Promise<boolean> {
  const invite = await findInvite(services.database.db, token);
  const usable = invite?.status === 'pending';
  c.header('Set-Cookie', inviteCookie(usable ? token : undefined, isHttps(services)), {
    append: true,
  });
  return usable;
}

/** Removes the invite cookie (after the account is made, or when it no longer works). */
export function dropInvite(c: AppContext, services: { baseUrl: string }): void {
  c.header('Set-Cookie', inviteCookie(undefined, isHttps(services)), { append: true });
}

function isHttps(services: { baseUrl: string }): boolean {
  return services.baseUrl.startsWith('https:');
}

/**
 * The sign-up page's view of the policy for this browser: the invite it carries, whether the
 * form is worth showing, and notices saying who may sign up. `closed` shows no form, except
 * while an address of `GATEWAY_ADMIN_EMAILS` has no account yet (so the operator can make the
 * first one), and "the first account becomes the admin" shows only where it is true.
 */
export async function signUpState(
  c: AppContext,
  services: { database: GatewayDatabase; signup: SignupPolicy },
  options: { inviteInvalid?: boolean } = {},
): Promise<SignUpState> {
  const policy = services.signup;
  const { db } = services.database;
  const token = inviteFromCookies(c.req.header('cookie'));
  const found = token === undefined ? undefined : await findInvite(db, token);
  const invite = found?.status === 'pending' ? found : undefined;
  const notices: Html[] = [];
  const info = (text: string) => html`<p class="notice info" role="status">${text}</p>`;
  const warn = (text: string) => html`<p class="notice error" role="alert">${text}</p>`;

  if (options.inviteInvalid || (token !== undefined && invite === undefined)) {
    notices.push(warn(signupRefusalText(policy, 'invite_invalid')));
  }
  let adminPending = false;
  if (policy.adminEmails !== undefined) {
    const existing = await countExistingEmails(db, policy.adminEmails);
    adminPending = existing < policy.adminEmails.length;
  }

  let showForm = true;
  if (policy.mode === 'closed') {
    showForm = adminPending;
    notices.push(
      warn(
        adminPending
          ? 'Sign-up is closed on this gateway, except for the administrator addresses it was set up with.'
          : `${signupRefusalText(policy, 'signup_closed')}.`,
      ),
    );
  } else if (invite !== undefined) {
    notices.push(
      info(
        invite.email === null
          ? 'You are signing up with an invite from an admin.'
          : `You are signing up with an invite for ${invite.email}.`,
      ),
    );
  } else if (policy.mode === 'invite') {
    notices.push(
      warn(`${signupRefusalText(policy, 'signup_invite_required')}: open the link you were sent.`),
    );
  }
  if (showForm && policy.emailDomains !== undefined) {
    notices.push(info(`${signupRefusalText(policy, 'signup_email_domain')}.`));
  }

  // Only when it is true for whoever signs up next: no admin addresses set, no user yet, and
  // this browser may sign up at all.
  const admitted = policy.mode === 'open' || (policy.mode === 'invite' && invite !== undefined);
  if (policy.adminEmails === undefined && admitted) {
    if (!(await anyUserExists(db))) {
      notices.push(
        info("You are the first person here: this account becomes the gateway's admin."),
      );
    }
  }
  return { invite, showForm, notices: html`${notices}` };
}
