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
