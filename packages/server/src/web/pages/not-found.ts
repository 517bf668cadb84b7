import type { AppContext } from '../../http/app-env.js';
import { html, htmlPage } from '../html.js';
import { layout } from '../layout.js';

/**
 * The web app's own 404 page, for a browser that asked for a page that is not there (a mistyped
 * address, an old bookmark): the gateway's look and a way back, instead of the API's JSON error.
 */
export function notFoundPage(c: AppContext): Promise<Response> {
  const body = html`<div class="card">
<h1>Page not found</h1>
<p>There is no page at <code>${c.req.path}</code>.</p>
<p><a href="/tools">Go to your tools</a></p>
</div>`;
  return htmlPage(c, layout({ title: 'Page not found', body, narrow: true }), 404);
}
