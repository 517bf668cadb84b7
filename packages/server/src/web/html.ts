import { html } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { AppContext } from '../http/app-env.js';
import { PAGE_HEADERS } from './security.js';

/**
 * The server's one HTML kit, for the web app and for the standalone pages beside it (the CLI's
 * sign-in, authorize and connect pages, upstream OAuth's connect pages, the MCP consent page):
 * hono's `html` template, which escapes every value it interpolates unless that value is itself
 * `html` or `raw` (there is no string page to forget an escape in). Text outside a page (the
 * CLI's loopback page) escapes with `escapeHtml` from `@gateway/sdk/kernel`.
 *
 * @example
 * html`<p>Connect ${name}</p>${hiddenFields({ state })}`;
 */
export type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

export { html, raw } from 'hono/html';

/** Hidden form fields for `values`, one line each. */
export function hiddenFields(values: Readonly<Record<string, string>>): Html {
  return html`${Object.entries(values).map(
    ([name, value], index) =>
      html`${index === 0 ? '' : '\n'}<input type="hidden" name="${name}" value="${value}">`,
  )}`;
}

/**
 * An HTML answer: `document` with the web app's page security headers, or the stricter
 * `headers` of a standalone page (`STANDALONE_PAGE_HEADERS`). Cookies already set on `c` go along.
 */
export async function htmlPage(
  c: AppContext,
  document: Html,
  status: ContentfulStatusCode = 200,
  headers: Readonly<Record<string, string>> = PAGE_HEADERS,
): Promise<Response> {
  for (const [name, value] of Object.entries(headers)) c.header(name, value);
  return c.html(await document, status);
}
