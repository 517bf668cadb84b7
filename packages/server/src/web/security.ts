/**
 * Headers of every web page: scripts and styles from the gateway's own origin only (no inline
 * script), no framing, no caching of pages that show secrets once. No `form-action`: browsers
 * apply it to the redirect after a form post too, which for Connect goes to the OAuth provider.
 */
export const PAGE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; frame-ancestors 'none'",
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'same-origin',
  'Cache-Control': 'no-store',
});

/**
 * Headers of a standalone page (`standalonePage`: the CLI's sign-in, authorize and connect pages,
 * the MCP consent page): no framing (the approve button must not be clickjacked), no caching, no
 * scripts, no referrer to other sites. No `form-action`: browsers apply it to the redirects after
 * a form post too, which go to the loopback listener or the OAuth provider.
 */
export const STANDALONE_PAGE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'Cache-Control': 'no-store',
  'Content-Security-Policy':
    "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
  'X-Frame-Options': 'DENY',
  // Not `no-referrer`: under it Chromium sends `Origin: null` with the pages' own form posts,
  // which the front door refuses. `same-origin` still sends nothing to the loopback listener or
  // the OAuth provider, so the code and state in these URLs stay on the gateway.
  'Referrer-Policy': 'same-origin',
});
