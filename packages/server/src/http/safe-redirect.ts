/** Options of {@link safeRedirectPath}. */
export interface SafeRedirectOptions {
  /** Accept only paths under one of these prefixes (e.g. `['/cli/']`). Default: any path. */
  allow?: readonly string[];
  /** Refuse paths under any of these prefixes (e.g. `['/api/']`). */
  deny?: readonly string[];
}

/**
 * Only the path matters: a candidate is accepted when resolving it keeps this origin, so the
 * gateway's real address is not needed. `http:` because backslashes count as slashes for the
 * special schemes, as a browser resolving a `Location` would count them.
 */
const BASE = new URL('http://gateway.invalid/');

/** Longer than any path the gateway makes; keeps a `Location` header (and logs) small. */
const MAX_LENGTH = 2048;

/** What the WHATWG URL parser drops anywhere in its input: tab, LF, CR. */
const TAB_OR_NEWLINE = /[\t\n\r]/g;
/** What it trims from both ends: C0 controls and space. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const EDGE_CONTROL_OR_SPACE = /^[\u0000-\u0020]+|[\u0000-\u0020]+$/g;
/** A percent-encoded slash, backslash or percent sign, which a later decode could turn into `//`. */
const ENCODED_SEPARATOR = /%(2f|5c|25)/i;
/** Controls that a decode of the path would bring back. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * A redirect target taken from a request (`next`, a `callbackURL` built from it) as a path on
 * this site, or `undefined` when it could lead anywhere else: the caller falls back to its own
 * default. The candidate is read the way a browser would read it in a `Location` header (tabs
 * and newlines dropped, controls and spaces trimmed, backslashes as slashes, dot segments
 * resolved), and must then be a single `/` followed by neither `/` nor `\`, resolve on this
 * origin, and hide no slash behind percent-encoding. What comes back is re-serialised by the URL
 * parser (`pathname + search + hash`), so it never carries a raw control character into a
 * header. Never throws.
 *
 * Refused, among others: `//evil.example`, `/\evil.example`, `/\t/evil.example`,
 * `https://evil.example`, `javascript:alert(1)`, `/%2f%2fevil.example`, a path outside `allow`
 * or inside `deny`, anything longer than 2048 characters.
 *
 * @example
 * const next = safeRedirectPath(c.req.query('next'), { deny: ['/api/'] }) ?? '/tools';
 * return c.redirect(next, 302);
 */
export function safeRedirectPath(
  candidate: string | undefined,
  options: SafeRedirectOptions = {},
): string | undefined {
  if (candidate === undefined || candidate.length > MAX_LENGTH) return undefined;
  const stripped = candidate.replace(TAB_OR_NEWLINE, '').replace(EDGE_CONTROL_OR_SPACE, '');
  if (!/^\/(?![/\\])/.test(stripped)) return undefined;
  let url: URL;
  try {
    url = new URL(stripped, BASE);
  } catch {
    return undefined;
  }
  if (url.origin !== BASE.origin || url.username !== '' || url.password !== '') return undefined;
  const { pathname } = url;
  // Dot segments resolved (`/a/..//x`) may leave a protocol-relative path behind.
  if (!pathname.startsWith('/') || pathname.startsWith('//')) return undefined;
  if (ENCODED_SEPARATOR.test(pathname)) return undefined;
  let decoded: string;
  try {
    // What the router matches (Hono decodes the path once), so prefixes are checked on it.
    decoded = decodeURIComponent(pathname);
  } catch {
    return undefined;
  }
  if (CONTROL.test(decoded)) return undefined;
  if (options.allow !== undefined && !options.allow.some((prefix) => decoded.startsWith(prefix)))
    return undefined;
  if (options.deny?.some((prefix) => decoded.startsWith(prefix))) return undefined;
  const path = pathname + url.search + url.hash;
  return path.length > MAX_LENGTH ? undefined : path;
}
