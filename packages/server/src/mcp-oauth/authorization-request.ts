import { isS256Challenge } from '../cli-auth/pkce.js';
import type { KnownClient } from './client-metadata.js';
import type { ClientRegistry } from './clients.js';
import { OAuthError } from './errors.js';
import { redirectMatches } from './redirect-uri.js';

/** The one scope of the MCP endpoint: list and call the tools the user's role allows. */
export const MCP_SCOPE = 'mcp';

/** The parameters of an authorization request Gateway reads. */
const FIELDS = [
  'response_type',
  'client_id',
  'redirect_uri',
  'state',
  'scope',
  'code_challenge',
  'code_challenge_method',
  'resource',
] as const;

/** An authorization request whose client and redirect URI are known good. */
export interface AuthorizationRequest {
  client: KnownClient;
  redirectUri: string;
  state: string | undefined;
  codeChallenge: string;
  resource: string;
  scope: string;
}

/**
 * How a request failed: before its client and redirect URI are trusted, only a page may say so
 * (RFC 6749 section 4.1.2.1: never redirect to an unchecked URI); after, the error goes back to
 * the client's redirect URI.
 */
export type AuthorizationProblem =
  | { to: 'page'; message: string }
  | { to: 'client'; redirectUri: string; state: string | undefined; error: OAuthError };

/** The request's parameters, each at most once (RFC 6749 section 3.1). */
function single(params: URLSearchParams): Record<string, string> | string {
  const values: Record<string, string> = {};
  for (const name of FIELDS) {
    const all = params.getAll(name);
    if (all.length > 1) return name;
    if (all[0] !== undefined && all[0] !== '') values[name] = all[0];
  }
  return values;
}

/** An authorization request checked: good, or the problem and where to tell it. */
type CheckedRequest =
  | { ok: true; request: AuthorizationRequest }
  | { ok: false; problem: AuthorizationProblem };

/**
 * Checks an authorization request (the query of `/oauth/authorize`, or the consent form that
 * carries it on): a known client, a redirect URI registered for it, then `response_type=code`,
 * PKCE with S256 only, `resource` naming Gateway's MCP endpoint (RFC 8707), and only the `mcp`
 * scope.
 */
export async function checkAuthorizationRequest(
  params: URLSearchParams,
  clients: ClientRegistry,
  resource: string,
): Promise<CheckedRequest> {
  const values = single(params);
  if (typeof values === 'string') {
    return { ok: false, problem: { to: 'page', message: `${values} is given more than once.` } };
  }
  const trusted = await trustedRedirect(values, clients);
  if (typeof trusted === 'string') return { ok: false, problem: { to: 'page', message: trusted } };
  const { client, redirectUri } = trusted;
  const state = values.state;
  const refuse = (error: OAuthError) => ({
    ok: false as const,
    problem: { to: 'client' as const, redirectUri, state, error },
  });
  const challenge = codeChallenge(values);
  if (challenge instanceof OAuthError) return refuse(challenge);
  const wrongTarget = targetError(values, resource);
  if (wrongTarget !== undefined) return refuse(wrongTarget);
  return {
    ok: true,
    request: { client, redirectUri, state, codeChallenge: challenge, resource, scope: MCP_SCOPE },
  };
}

/**
 * The request's client and a redirect URI registered for it, once both are known good; else what
 * is wrong, for the page.
 */
async function trustedRedirect(
  values: Record<string, string>,
  clients: ClientRegistry,
): Promise<{ client: KnownClient; redirectUri: string } | string> {
  if (values.client_id === undefined) return 'The request names no client_id.';
  let client: KnownClient;
  try {
    client = await clients.find(values.client_id);
  } catch (error) {
    if (!(error instanceof OAuthError)) throw error;
    return error.message;
  }
  const redirectUri = values.redirect_uri;
  if (redirectUri === undefined || !redirectMatches(redirectUri, client.redirectUris)) {
    return 'redirect_uri is missing or is not one registered for this client.';
  }
  return { client, redirectUri };
}

/** The S256 code challenge of a request for a code; else what is wrong with it. */
function codeChallenge(values: Record<string, string>): string | OAuthError {
  if (values.response_type !== 'code') {
    return new OAuthError('unsupported_response_type', 'Only response_type=code is supported');
  }
  if (values.code_challenge === undefined) {
    return new OAuthError('invalid_request', 'PKCE is required: send code_challenge with S256');
  }
  if (values.code_challenge_method !== 'S256') {
    return new OAuthError('invalid_request', 'Only code_challenge_method=S256 is supported');
  }
  if (!isS256Challenge(values.code_challenge)) {
    return new OAuthError('invalid_request', 'code_challenge is not an S256 challenge');
  }
  return values.code_challenge;
}

/** What is wrong with the request's `resource` (RFC 8707) or `scope`, if anything. */
function targetError(values: Record<string, string>, resource: string): OAuthError | undefined {
  if (values.resource === undefined) {
    return new OAuthError(
      'invalid_target',
      `resource is required (RFC 8707); this server's is ${resource}`,
    );
  }
  if (values.resource !== resource && values.resource !== `${resource}/`) {
    return new OAuthError('invalid_target', `resource must be ${resource}`);
  }
  const scopes = (values.scope ?? MCP_SCOPE).split(' ').filter((one) => one !== '');
  if (scopes.some((one) => one !== MCP_SCOPE)) {
    return new OAuthError('invalid_scope', `The only scope is ${MCP_SCOPE}`);
  }
  return undefined;
}

/** The query of the original authorization request, as one URL-safe value (for `next`). */
export function packRequest(params: URLSearchParams): string {
  const kept = new URLSearchParams();
  for (const name of FIELDS) for (const value of params.getAll(name)) kept.append(name, value);
  return Buffer.from(kept.toString(), 'utf8').toString('base64url');
}

/** The parameters {@link packRequest} packed. */
export function unpackRequest(packed: string): URLSearchParams {
  return new URLSearchParams(Buffer.from(packed, 'base64url').toString('utf8'));
}

/** `redirectUri` with `params` added to its query (RFC 6749 section 4.1.2). */
export function withParams(
  redirectUri: string,
  params: Record<string, string | undefined>,
): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined) url.searchParams.set(name, value);
  }
  return url.href;
}
