/** Where the gateway publishes its OAuth Client ID Metadata Document. */
export const CLIENT_METADATA_PATH = '/oauth/client-metadata.json';

/** How long an authorization server may keep the document before fetching it again. */
export const CLIENT_METADATA_MAX_AGE_SECONDS = 3600;

/**
 * The gateway's client ID at authorization servers that accept Client ID Metadata Documents
 * (draft-ietf-oauth-client-id-metadata-document, the MCP authorization spec's preferred way for
 * a client without a prior relationship): the document's own URL. Only an `https` address can be
 * one (the draft's rule), so a gateway served over plain HTTP has none and registers instead.
 *
 * @example
 * clientMetadataUrl('https://gateway.example.com') // 'https://gateway.example.com/oauth/client-metadata.json'
 * clientMetadataUrl('http://localhost:8080') // undefined
 */
export function clientMetadataUrl(baseUrl: string): string | undefined {
  const base = URL.parse(baseUrl);
  if (base === null || base.protocol !== 'https:' || base.username !== '' || base.password !== '') {
    return undefined;
  }
  return `${base.origin}${base.pathname.replace(/\/+$/, '')}${CLIENT_METADATA_PATH}`;
}

/**
 * The document an authorization server fetches from {@link clientMetadataUrl}: a public client
 * (PKCE, no secret: the draft forbids shared secrets) whose one redirect URI is the gateway's
 * upstream callback. Built from the configured address only, never from a request's `Host`.
 *
 * @throws Error when `baseUrl` is not https (it has no document then).
 */
export function clientMetadataDocument(
  baseUrl: string,
  redirectUri: string,
): Record<string, unknown> {
  const clientId = clientMetadataUrl(baseUrl);
  if (clientId === undefined) throw new Error('a gateway without an https address has no document');
  const base = new URL(baseUrl);
  return {
    client_id: clientId,
    client_name: `Gateway (${base.host})`,
    client_uri: base.origin,
    redirect_uris: [redirectUri],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    application_type: 'web',
  };
}
