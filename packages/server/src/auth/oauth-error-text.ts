/** better-auth's error codes on OAuth redirects (and the gateway's own), put in words. */
const OAUTH_ERRORS: Readonly<Record<string, string>> = {
  account_not_linked:
    'That account is not linked to a Gateway user. Sign in with your password, then connect it from the Tools tab.',
  email_not_found: 'The provider did not share an email address.',
  unable_to_get_user_info: 'The provider did not say who you are (user info is missing).',
  user_info_is_missing: 'The provider did not say who you are (user info is missing).',
  // A replayed callback finds its state spent, so it reads as a mismatch too.
  state_mismatch:
    'This sign-in was already used, took too long, or was started in another browser, so it was refused. Start again.',
  please_restart_the_process:
    'This sign-in was already used, took too long, or was started in another browser, so it was refused. Start again.',
  issuer_missing:
    'The provider answered without saying who it is, which it always does; the sign-in was refused. Try again.',
  issuer_mismatch:
    'The answer came from another provider than the one asked; the sign-in was refused.',
  id_token_invalid:
    "The provider's proof of who you are did not check out (ID token refused). Try again, or tell your admin.",
  provider_unavailable: 'The sign-in provider cannot be reached right now. Try again in a minute.',
  access_denied: 'The provider sign-in was cancelled.',
};

/**
 * A sign-in error code from an OAuth redirect, in words; `overrides` words some codes for a page
 * of its own (the CLI's sign-in page has no Tools tab to point to).
 */
export function oauthErrorText(
  code: string,
  overrides: Readonly<Record<string, string>> = {},
): string {
  return overrides[code] ?? OAUTH_ERRORS[code] ?? `Signing in with the provider failed (${code}).`;
}
