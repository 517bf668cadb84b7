import { APP_CSS } from './assets/styles.js';

/**
 * A self-contained page in the web app's look (stylesheet inlined, no script), for pages with a
 * stricter policy of their own: the CLI sign-in, authorize and connect pages. `title` and `body`
 * must already be escaped.
 */
export function standalonePage(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>${title} · Gateway</title>
<style>${APP_CSS}</style>
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
