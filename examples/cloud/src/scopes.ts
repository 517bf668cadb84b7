/**
 * The OAuth scopes the cloud plugin asks Google for: the single read-only cloud-platform scope,
 * which covers every Google Cloud API the tools read, plus the OIDC scopes sign-in needs (without
 * them the OAuth callback fails with `user_info_is_missing`).
 *
 * Never add per-API scopes (such as `devstorage.read_only`): the cloud-platform scope already
 * covers them. Never add the IAM scope: Google rejects it as invalid.
 */
export const GOOGLE_CLOUD_SCOPES = [
  'https://www.googleapis.com/auth/cloud-platform.read-only',
  'openid',
  'email',
  'profile',
] as const;
