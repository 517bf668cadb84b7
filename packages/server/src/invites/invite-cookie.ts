import { INVITE_TOKEN } from './store.js';

/**
 * The cookie that carries an invite from the `/sign-up?invite=` page to the account's creation,
 * whichever way it happens (the email form, the CLI sign-in page, an OAuth provider's redirect
 * back). `SameSite=Lax` so it rides along the provider's top-level redirect to the callback;
 * `HttpOnly` so page scripts never see the token.
 */
export const INVITE_COOKIE = 'gateway_invite';

/** How long the cookie lasts: enough to fill in the form or go through a provider. */
export const INVITE_COOKIE_SECONDS = 60 * 60;

/** The invite token a request carries in its cookie, when it has the shape of one. */
export function inviteFromCookies(cookieHeader: string | null | undefined): string | undefined {
  if (!cookieHeader) return undefined;
  for (const part of cookieHeader.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== INVITE_COOKIE) continue;
    const value = part.slice(eq + 1).trim();
    if (INVITE_TOKEN.test(value)) return value;
  }
  return undefined;
}

/** The `Set-Cookie` value that stores `token` (or, with `undefined`, removes the cookie). */
export function inviteCookie(token: string | undefined, secure: boolean): string {
  const attributes = ['Path=/', 'HttpOnly', 'SameSite=Lax', ...(secure ? ['Secure'] : [])];
  return token === undefined
    ? [`${INVITE_COOKIE}=`, 'Max-Age=0', ...attributes].join('; ')
    : [`${INVITE_COOKIE}=${token}`, `Max-Age=${INVITE_COOKIE_SECONDS}`, ...attributes].join('; ');
}
