import type { McpOAuthSettings } from '../config/env-mcp-oauth.js';
import { UpstreamHttpError, type UrlPolicy } from '../upstream/index.js';
import { checkOAuthUrl, createOAuthFetch } from '../upstream-oauth/index.js';
import { type CheckedMetadata, checkClientMetadata } from './client-metadata.js';

/** How long a document without caching headers is kept, and the longest any is. */
const DEFAULT_MAX_AGE_SECONDS = 300;
const LONGEST_MAX_AGE_SECONDS = 24 * 60 * 60;

/** Whether a client id is the URL of a Client ID Metadata Document rather than a registration. */
export function isClientIdUrl(clientId: string): boolean {
  return /^https?:\/\//i.test(clientId);
}

/** A fetched and checked document, with how long it may be kept. */
export interface FetchedDocument {
  metadata: CheckedMetadata;
  maxAgeSeconds: number;
}

/**
 * Why `clientId` may not be a Client ID Metadata Document URL, or undefined when it may: `https:`
 * with a path, in the form the URL parser writes (no dot segments or encoding tricks), no
 * credentials or fragment, from an allowed origin when `GATEWAY_MCP_OAUTH_CLIENT_ID_ORIGINS` is
 * set. `http:` on loopback only where the test-only setting allows it.
 */
function clientIdProblem(clientId: string, settings: McpOAuthSettings): string | undefined {
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    return 'is not a URL';
  }
  if (url.href !== clientId) return 'is not in canonical form';
  if (url.username !== '' || url.password !== '' || url.hash !== '') {
    return 'must not carry credentials or a fragment';
  }
  if (url.pathname === '/') return 'must have a path';
  const loopbackHttp =
    settings.allowLoopbackHttpClientIds &&
    url.protocol === 'http:' &&
    ['127.0.0.1', '[::1]', 'localhost'].includes(url.hostname);
  if (url.protocol !== 'https:' && !loopbackHttp) return 'must be an https: URL';
  if (settings.clientIdOrigins.length > 0 && !settings.clientIdOrigins.includes(url.origin)) {
    return 'is not from an allowed origin (GATEWAY_MCP_OAUTH_CLIENT_ID_ORIGINS)';
  }
  return undefined;
}

/** Seconds the answer may be kept, from `Cache-Control` (`no-store`, `no-cache`, `max-age`). */
function maxAgeOf(headers: Headers): number {
  const cacheControl = headers.get('cache-control')?.toLowerCase() ?? '';
  if (/(?:^|,)\s*(?:no-store|no-cache)\s*(?:,|$)/.test(cacheControl)) return 0;
  const maxAge = /(?:^|,)\s*max-age\s*=\s*"?(\d+)"?/.exec(cacheControl)?.[1];
  if (maxAge !== undefined) return Math.min(Number(maxAge), LONGEST_MAX_AGE_SECONDS);
  return DEFAULT_MAX_AGE_SECONDS;
}

/**
 * Fetches the Client ID Metadata Document at `clientId` the way upstream OAuth metadata is
 * fetched: the upstream URL policy (no link-local, private or loopback address unless
 * `GATEWAY_UPSTREAM_ALLOW_PRIVATE`, never the gateway itself, checked again at connect), no
 * redirect followed, and the size and time limits of `settings.clientIdFetch`. The document must
 * name `clientId` as its `client_id` and be a public client's.
 *
 * @returns the checked metadata, or the problem as one sentence.
 */
export async function fetchClientIdDocument(
  clientId: string,
  settings: McpOAuthSettings,
  policy: UrlPolicy,
): Promise<{ ok: true; document: FetchedDocument } | { ok: false; problem: string }> {
  const problem = clientIdProblem(clientId, settings);
  if (problem !== undefined) return { ok: false, problem: `The client_id URL ${problem}` };
  let url: URL;
  try {
    url = checkOAuthUrl(clientId, 'The client_id URL', policy);
  } catch (error) {
    return { ok: false, problem: error instanceof Error ? error.message : String(error) };
  }
  const oauthFetch = createOAuthFetch(policy, settings.clientIdFetch);
  try {
    const response = await oauthFetch.fetch(url, { headers: { accept: 'application/json' } });
    if (response.status !== 200) {
      await response.body?.cancel();
      return {
        ok: false,
        problem: `The client's metadata document answered HTTP ${response.status}`,
      };
    }
    const text = await response.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return { ok: false, problem: "The client's metadata document is not JSON" };
    }
    if (typeof json !== 'object' || json === null || Array.isArray(json)) {
      return { ok: false, problem: "The client's metadata document is not a JSON object" };
    }
    const fields = json as Record<string, unknown>;
    if (fields.client_id !== clientId) {
      return { ok: false, problem: "The client's metadata document names another client_id" };
    }
    const method = fields.token_endpoint_auth_method;
    if (method !== undefined && method !== 'none') {
      return {
        ok: false,
        problem: 'Gateway accepts only public clients (token_endpoint_auth_method "none")',
      };
    }
    let metadata: CheckedMetadata;
    try {
      metadata = checkClientMetadata(fields, settings.redirectHosts);
    } catch (error) {
      return { ok: false, problem: error instanceof Error ? error.message : String(error) };
    }
    return { ok: true, document: { metadata, maxAgeSeconds: maxAgeOf(response.headers) } };
  } catch (error) {
    return { ok: false, problem: fetchProblem(error, settings.clientIdFetch.timeoutMs) };
  } finally {
    await oauthFetch.close();
  }
}

/**
 * Why the document could not be fetched, in one sentence. The gateway's own refusals of the
 * answer (a redirect, a size over the limit) and the time limit keep their words; anything that
 * stopped the connection itself (a name that does not resolve, one that resolves only to
 * addresses the URL policy refuses, a refused or reset connection) is one sentence for all, so
 * the authorize endpoint, which anyone may call, cannot be used to learn which internal host
 * names exist or what they resolve to.
 */
function fetchProblem(error: unknown, timeoutMs: number): string {
  const prefix = "The client's metadata document could not be fetched";
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
    return `${prefix}: it did not answer within ${timeoutMs} ms`;
  }
  if (error instanceof UpstreamHttpError) return `${prefix}: it ${error.message}`;
  return `${prefix}: its host could not be reached (unknown, not answering, or an address the gateway does not connect to)`;
}
