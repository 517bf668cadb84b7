import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { GuardedFetch } from '../upstream/guarded-fetch.js';
import { checkUpstreamUrl, classifyAddress, type UrlPolicy } from '../upstream/url-policy.js';

/** The largest OAuth document or token answer the gateway reads. */
const MAX_BYTES = 256 * 1024;
/** Connecting to, and the whole answer of, an authorization server or metadata host. */
const TIMEOUT_MS = 15_000;

/** A URL an upstream's OAuth metadata named that the gateway will not use. */
export class OAuthUrlError extends Error {
  constructor(
    readonly what: string,
    problem: string,
  ) {
    super(`${what} ${problem}`);
    this.name = 'OAuthUrlError';
  }
}

/**
 * Checks a URL taken from an upstream's OAuth metadata (or the upstream itself) before the gateway
 * or a browser is sent there: the upstream URL rules (`http:`/`https:`, no credentials, not the
 * gateway, no refused address), and `https:` unless the host is a loopback address (which the URL
 * policy allows only with `GATEWAY_UPSTREAM_ALLOW_PRIVATE`), as OAuth 2.1 and the MCP
 * authorization spec require of every authorization server endpoint.
 *
 * @example
 * checkOAuthUrl('http://169.254.169.254/', 'the authorization server', policy); // throws
 *
 * @throws OAuthUrlError saying which URL (`what`) and why.
 */
export function checkOAuthUrl(raw: string, what: string, policy: UrlPolicy): URL {
  const checked = checkUpstreamUrl(raw, policy);
  if (!checked.ok) throw new OAuthUrlError(what, checked.problem.replace(/^url /, ''));
  const { url } = checked;
  if (url.protocol !== 'https:' && !isLoopback(url)) {
    throw new OAuthUrlError(what, 'must be https: (plain http: only on a loopback address)');
  }
  return url;
}

function isLoopback(url: URL): boolean {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  try {
    return classifyAddress(host) === 'loopback';
  } catch {
    return false;
  }
}

/** A fetch for one OAuth exchange with an upstream and its authorization server; close it after. */
export interface OAuthFetch {
  fetch: FetchLike;
  close(): Promise<void>;
}

/**
 * The fetch the MCP SDK's OAuth helpers run over: every URL checked with {@link checkOAuthUrl}
 * first, then sent through the upstream's guarded fetch (addresses checked again at connect, so
 * DNS cannot rebind to a refused one; no redirect followed; answers over 256 KiB cut off), with a
 * 15 s limit (or `limits`). Form bodies (`URLSearchParams`) are sent as text.
 *
 * @example
 * const oauthFetch = createOAuthFetch(policy);
 * try { await registerClient(issuer, { metadata, clientMetadata, fetchFn: oauthFetch.fetch }); }
 * finally { await oauthFetch.close(); }
 */
export function createOAuthFetch(
  policy: UrlPolicy,
  limits: { maxBytes: number; timeoutMs: number } = { maxBytes: MAX_BYTES, timeoutMs: TIMEOUT_MS },
): OAuthFetch {
  const byOrigin = new Map<string, GuardedFetch>();
  const fetch: FetchLike = async (input, init) => {
    const url = checkOAuthUrl(String(input), 'a URL in the OAuth exchange', policy);
    // undici loads with the first OAuth exchange, not at start. Before the lookup, so two
    // requests to one origin cannot both make a pool.
    const { guardedFetch } = await import('../upstream/guarded-fetch.js');
    let guarded = byOrigin.get(url.origin);
    if (guarded === undefined) {
      guarded = guardedFetch({
        url,
        policy,
        maxBytes: limits.maxBytes,
        connectTimeoutMs: limits.timeoutMs,
      });
      byOrigin.set(url.origin, guarded);
    }
    const body = init?.body;
    const signal = init?.signal
      ? AbortSignal.any([init.signal, AbortSignal.timeout(limits.timeoutMs)])
      : AbortSignal.timeout(limits.timeoutMs);
    return guarded.fetch(url, {
      ...init,
      ...(body instanceof URLSearchParams ? { body: body.toString() } : {}),
      signal,
    });
  };
  return {
    fetch,
    close: async () => {
      const all = [...byOrigin.values()];
      byOrigin.clear();
      await Promise.all(all.map((one) => one.close().catch(() => {})));
    },
  };
}
