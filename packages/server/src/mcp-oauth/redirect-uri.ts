/** Host names of a loopback redirect (RFC 8252 section 7.3); its port may differ at authorize. */
const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);
/** A private-use scheme (RFC 8252 section 7.1) is a reverse domain name: it contains a dot. */
const PRIVATE_USE_SCHEME = /^[a-z][a-z0-9+-]*(?:\.[a-z0-9+-]+)+:$/;

/** What kind of redirect URI a registered one is. */
export type RedirectKind = 'https' | 'loopback' | 'private_use';

/**
 * The URL of `raw` when `raw` is already in the form the URL parser writes (so no percent
 * encoding, dot segment, backslash or case trick can make two spellings of one target), without
 * credentials or fragment; else undefined. An empty path may be written without its slash.
 */
function canonicalUrl(raw: string): URL | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return undefined;
  }
  if (url.username !== '' || url.password !== '' || url.hash !== '' || raw.includes('#')) {
    return undefined;
  }
  const href = url.href;
  if (raw !== href && !(url.pathname === '/' && url.search === '' && `${raw}/` === href)) {
    return undefined;
  }
  return url;
}

/**
 * Why `raw` may not be registered as a redirect URI, or its kind: `https:` (a host in
 * `allowedHosts` when that is not empty), `http:` on a loopback address (RFC 8252: native apps
 * listen on any port), or a private-use scheme of a native app (`com.example.app:/callback`).
 * Never credentials, a fragment or a non-canonical spelling.
 *
 * @example
 * redirectKind('https://claude.ai/api/mcp/auth_callback', []); // { ok: true, kind: 'https' }
 */
export function redirectKind(
  raw: string,
  allowedHosts: readonly string[],
): { ok: true; kind: RedirectKind } | { ok: false; problem: string } {
  const url = canonicalUrl(raw);
  if (url === undefined) {
    return {
      ok: false,
      problem: `${raw} is not an absolute URL in canonical form without credentials or fragment`,
    };
  }
  if (url.protocol === 'https:') {
    if (allowedHosts.length > 0 && !allowedHosts.includes(url.hostname)) {
      return { ok: false, problem: `${url.hostname} is not an allowed redirect host` };
    }
    return { ok: true, kind: 'https' };
  }
  if (url.protocol === 'http:') {
    if (LOOPBACK_HOSTS.has(url.hostname)) return { ok: true, kind: 'loopback' };
    return { ok: false, problem: `${raw} must be https: (plain http: only on a loopback address)` };
  }
  if (PRIVATE_USE_SCHEME.test(url.protocol)) {
    return { ok: true, kind: 'private_use' };
  }
  return { ok: false, problem: `${raw} has a scheme that is not allowed` };
}

/**
 * Whether `candidate` (from an authorization or token request) is one of `registered`: the very
 * same string, or, for a loopback redirect, the same scheme, host, path and query on any port
 * (RFC 8252 section 7.3). Nothing else is normalised.
 *
 * @example
 * redirectMatches('http://127.0.0.1:51234/cb', ['http://127.0.0.1/cb']); // true
 */
export function redirectMatches(candidate: string, registered: readonly string[]): boolean {
  if (registered.includes(candidate)) return true;
  const url = canonicalUrl(candidate);
  if (url === undefined || url.protocol !== 'http:' || !LOOPBACK_HOSTS.has(url.hostname)) {
    return false;
  }
  return registered.some((entry) => {
    const known = canonicalUrl(entry);
    return (
      known !== undefined &&
      known.protocol === 'http:' &&
      known.hostname === url.hostname &&
      known.pathname === url.pathname &&
      known.search === url.search
    );
  });
}
