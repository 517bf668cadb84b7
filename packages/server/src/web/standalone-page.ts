import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { AppContext } from '../http/app-env.js';
import { APP_CSS } from './assets/styles.js';
import { type Html, html, htmlPage, raw } from './html.js';
import { STANDALONE_PAGE_HEADERS } from './security.js';

/**
 * A self-contained page in the web app's look (stylesheet inlined, no script) with the stricter
 * headers of its own (`STANDALONE_PAGE_HEADERS`), and any cookies already set on `c`: the CLI
 * sign-in, authorize and connect pages, upstream OAuth's connect pages and the MCP consent page.
 *
 * @example
 * return standalonePage(c, 'Sign in', html`<h1>Sign in</h1>`);
 */
export function standalonePage(
  c: AppContext,
  title: string,
  body: Html,
  status: ContentfulStatusCode = 200,
): Promise<Response> {
  return htmlPage(c, standaloneDocument(title, body), status, STANDALONE_PAGE_HEADERS);
}

function standaloneDocument(title: string, body: Html): Html {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>${title} · Gateway</title>
<style>${raw(APP_CSS)}</style>
</head>
<body>
<header class="site-header"><div class="site-header-inner"><span class="brand"><span class="brand-mark" aria-hidden="true">G</span>Gateway</span></div></header>
<main id="main" class="narrow">
<div class="card">
${body}
</div>
</main>
</body>
</html>`;
}
