import { z } from 'zod';
import { OAuthError } from './errors.js';
import { type RedirectKind, redirectKind } from './redirect-uri.js';

/**
 * Client metadata (RFC 7591 section 2, and `application_type` from OpenID Connect Dynamic Client
 * Registration), as registered or in a Client ID Metadata Document. Fields Gateway does not use
 * are allowed and ignored (RFC 7591: a server ignores what it does not understand).
 */
export const clientMetadataSchema = z.object({
  redirect_uris: z.array(z.string().max(2000)).min(1).max(10),
  client_name: z.string().trim().min(1).max(100).optional(),
  client_uri: z.string().max(2000).optional(),
  application_type: z.enum(['web', 'native']).optional(),
  grant_types: z.array(z.string().max(100)).max(10).optional(),
  response_types: z.array(z.string().max(100)).max(10).optional(),
  token_endpoint_auth_method: z.string().max(100).optional(),
  scope: z.string().max(1000).optional(),
  software_id: z.string().max(200).optional(),
  software_version: z.string().max(200).optional(),
});

/** A client as Gateway's authorization server knows it. */
export interface KnownClient {
  clientId: string;
  /** `dcr`: registered by itself, its name unverified; `cimd`: its id is its metadata's https URL. */
  kind: 'dcr' | 'cimd';
  name: string;
  redirectUris: readonly string[];
  applicationType: 'web' | 'native';
}

/** Client metadata checked against Gateway's rules. */
export interface CheckedMetadata {
  name: string;
  redirectUris: string[];
  applicationType: 'web' | 'native';
  /** What is stored and answered back (RFC 7591 section 3.2.1). */
  registered: Record<string, unknown>;
}

const GRANT_TYPES = new Set(['authorization_code', 'refresh_token']);

/**
 * Checks client metadata: redirect URIs by {@link redirectKind} (a `web` client: `https:` only; a
 * `native` one: loopback, private-use scheme or `https:`; without `application_type`, native when
 * no URI is `https:`), only the authorization code and refresh token grants and the `code` response
 * type. Gateway's clients are public: whatever authentication method is asked for, `none` is
 * registered (RFC 7591 lets the server replace a value).
 *
 * @throws OAuthError `invalid_redirect_uri` or `invalid_client_metadata` (RFC 7591 section 3.2.2).
 */
export function checkClientMetadata(
  input: unknown,
  allowedRedirectHosts: readonly string[],
): CheckedMetadata {
  const parsed = clientMetadataSchema.safeParse(input);
  if (!parsed.success) {
    const fields = [...new Set(parsed.error.issues.map((issue) => issue.path.join('.')))];
    const redirect = fields.some((field) => field.startsWith('redirect_uris'));
    throw new OAuthError(
      redirect ? 'invalid_redirect_uri' : 'invalid_client_metadata',
      `Invalid client metadata: ${fields.join(', ') || 'not a JSON object'}`,
    );
  }
  const metadata = parsed.data;
  const kinds: RedirectKind[] = [];
  for (const uri of metadata.redirect_uris) {
    const checked = redirectKind(uri, allowedRedirectHosts);
    if (!checked.ok) throw new OAuthError('invalid_redirect_uri', checked.problem);
    kinds.push(checked.kind);
  }
  const applicationType = metadata.application_type ?? (kinds.includes('https') ? 'web' : 'native');
  if (applicationType === 'web' && kinds.some((kind) => kind !== 'https')) {
    throw new OAuthError(
      'invalid_redirect_uri',
      'A web application may only use https: redirect URIs; a native app registers with application_type "native"',
    );
  }
  for (const grant of metadata.grant_types ?? []) {
    if (!GRANT_TYPES.has(grant)) {
      throw new OAuthError('invalid_client_metadata', `The grant type ${grant} is not supported`);
    }
  }
  for (const type of metadata.response_types ?? []) {
    if (type !== 'code') {
      throw new OAuthError('invalid_client_metadata', `The response type ${type} is not supported`);
    }
  }
  const name = metadata.client_name ?? 'MCP client';
  return {
    name,
    redirectUris: metadata.redirect_uris,
    applicationType,
    registered: {
      client_name: name,
      redirect_uris: metadata.redirect_uris,
      application_type: applicationType,
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      ...(metadata.client_uri === undefined ? {} : { client_uri: metadata.client_uri }),
      ...(metadata.software_id === undefined ? {} : { software_id: metadata.software_id }),
      ...(metadata.software_version === undefined
        ? {}
        : { software_version: metadata.software_version }),
    },
  };
}
