/**
 * How an OAuth provider is wired into sign-in: better-auth's built-in social providers, or its
 * generic OAuth plugin. The two register at different callback paths.
 */
export type OAuthProviderKind = 'social' | 'generic';

/** A shipped OAuth provider. */
export interface OAuthProviderInfo {
  /** Provider id: the `<ID>_CLIENT_ID` / `<ID>_CLIENT_SECRET` prefix, upper-cased, and the callback path segment. */
  id: string;
  /** Display name. */
  name: string;
  kind: OAuthProviderKind;
}

/**
 * The OAuth providers the gateway ships: four social sign-in providers and four added through
 * generic OAuth. Each is enabled only when both its client id and secret are set. Shared by the
 * sign-in setup and `GET /api/connectors/availability`.
 */
export const OAUTH_PROVIDERS: readonly OAuthProviderInfo[] = Object.freeze([
  { id: 'github', name: 'GitHub', kind: 'social' },
  { id: 'google', name: 'Google', kind: 'social' },
  { id: 'microsoft', name: 'Microsoft', kind: 'social' },
  { id: 'discord', name: 'Discord', kind: 'social' },
  { id: 'gcp', name: 'Google Cloud', kind: 'generic' },
  { id: 'atlassian', name: 'Atlassian', kind: 'generic' },
  { id: 'slack', name: 'Slack', kind: 'generic' },
  { id: 'linear', name: 'Linear', kind: 'generic' },
]);

/**
 * The redirect URI to register upstream for a provider: `{auth_url}/api/auth/callback/<id>` for
 * social providers, `{auth_url}/api/auth/oauth2/callback/<id>` for generic ones.
 *
 * @example
 * oauthCallbackUrl('https://gw.example.com', { id: 'gcp', kind: 'generic' });
 * // 'https://gw.example.com/api/auth/oauth2/callback/gcp'
 */
export function oauthCallbackUrl(
  authBaseUrl: string,
  provider: Pick<OAuthProviderInfo, 'id' | 'kind'>,
): string {
  const base = authBaseUrl.replace(/\/+$/, '');
  const path = provider.kind === 'social' ? '/api/auth/callback/' : '/api/auth/oauth2/callback/';
  return `${base}${path}${encodeURIComponent(provider.id)}`;
}
