/**
 * Escapes text for HTML element content and quoted attribute values: the one escaper of every
 * hand-written page of the gateway and the CLI (the server's HTML kit builds on it, and so do the
 * CLI's loopback page and `gateway dev`'s stand-ins).
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
