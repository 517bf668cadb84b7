/**
 * Escapes text for HTML element content and quoted attribute values: the one escaper of the
 * server's hand-written pages (the CLI sign-in pages, the OAuth consent and connect pages, the API
 * docs). The web app's own pages escape through hono's `html` template instead.
 *
 * @example
 * `<p>${escapeHtml(name)}</p>`;
 */
export function escapeHtml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}
