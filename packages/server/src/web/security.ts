import type { AppContext } from '../http/app-env.js';
import type { GatewayServices } from '../services.js';

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
 * Whether a state-changing request comes from one of the gateway's own pages: its `Origin` is one
 * of the gateway's origins, or, from a browser that sends no `Origin`, `Sec-Fetch-Site` says
 * same-origin. Anything else (another site's form, a request with neither header) is refused.
 * Together with the `SameSite=Lax` session cookie this is the web app's CSRF defence.
 */
export function isSameOrigin(c: AppContext, services: GatewayServices): boolean {
  const origin = c.req.header('origin');
  if (origin !== undefined) {
    const own = new Set([
      new URL(services.baseUrl).origin,
      new URL(services.authBaseUrl).origin,
      new URL(c.req.url).origin,
    ]);
    return own.has(origin);
  }
  return c.req.header('sec-fetch-site') === 'same-origin';
}
