import { createHash } from 'node:crypto';
import type { Hono } from 'hono';
import type { AppEnv } from '../../http/app-env.js';
import { APP_SCRIPT } from './client-script.js';
import { APP_CSS } from './styles.js';

interface Asset {
  /** The URL pages link to: the path plus a content hash, so it can be cached for good. */
  url: string;
  path: string;
  version: string;
  body: string;
  type: string;
}

function asset(path: string, body: string, type: string): Asset {
  const version = createHash('sha256').update(body).digest('hex').slice(0, 12);
  return { url: `${path}?v=${version}`, path, version, body, type };
}

// The brand mark of the header. Served at /favicon.ico, where browsers look for an icon on pages
// that name none (the API reference, JSON answers), so no page leaves a 404 in the log.
const ICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#2346c7"/><text x="16" y="23" font-family="system-ui,Arial,sans-serif" font-size="20" font-weight="700" text-anchor="middle" fill="#fff">G</text></svg>';

/** The stylesheet, the script and the icon of the web app. */
export const ASSETS = {
  css: asset('/assets/app.css', APP_CSS, 'text/css; charset=utf-8'),
  js: asset('/assets/app.js', APP_SCRIPT, 'text/javascript; charset=utf-8'),
  icon: asset('/favicon.ico', ICON_SVG, 'image/svg+xml'),
} as const;

/**
 * Serves the assets. A request naming the current version may be cached for a year; any other
 * is revalidated.
 */
export function mountAssets(app: Hono<AppEnv>): void {
  for (const served of Object.values(ASSETS)) {
    app.get(served.path, (c) => {
      c.header('Content-Type', served.type);
      c.header('X-Content-Type-Options', 'nosniff');
      c.header(
        'Cache-Control',
        c.req.query('v') === served.version ? 'public, max-age=31536000, immutable' : 'no-cache',
      );
      return c.body(served.body);
    });
  }
}

export { APP_CSS } from './styles.js';
