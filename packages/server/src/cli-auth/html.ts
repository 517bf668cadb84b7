import { escapeHtml } from '../web/escape-html.js';
import { standalonePage } from '../web/standalone-page.js';

export { escapeHtml };

/** Hidden form fields for `values`. */
export function hiddenFields(values: Record<string, string>): string {
  return Object.entries(values)
    .map(
      ([name, value]) =>
        `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`,
    )
    .join('\n');
}

/**
 * A complete, self-contained page (no scripts, no external assets) for the CLI sign-in flow, in
 * the web app's look (its stylesheet inlined). `body` must already be escaped.
 */
export function page(title: string, body: string): string {
  return standalonePage(escapeHtml(title), body);
}

/**
 * Security headers every CLI page carries: no framing (the approve button must not be
 * clickjacked), no caching, no scripts, no referrer to other sites. No `form-action`: browsers apply it to the redirects
 * after a form post too, which go to the loopback listener or the OAuth provider.
 */
export const PAGE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'Content-Type': 'text/html; charset=utf-8',
  'Cache-Control': 'no-store',
  'Content-Security-Policy':
    "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
  'X-Frame-Options': 'DENY',
  // Not `no-referrer`: under it Chromium sends `Origin: null` with the pages' own form posts,
  // which the front door refuses. `same-origin` still sends nothing to the loopback listener or
  // the OAuth provider, so the code and state in these URLs stay on the gateway.
  'Referrer-Policy': 'same-origin',
});
