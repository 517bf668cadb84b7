import type { Hono } from 'hono';
import type { AppContext, AppEnv } from '../http/app-env.js';
import { mountLazily } from '../http/lazy-routes.js';
import type { Authenticate } from '../identity/index.js';
import type { WebDeps } from './kit.js';
import { WEB_ROUTES } from './routes.js';

/**
 * Mounts the web app at `/` as `mountWebApp` does, with its pages, assets and their modules
 * loaded by the first request to one of its routes (issue 37: a start that serves the API and MCP
 * loads none of them; `start-up.test.ts` checks).
 *
 * @example
 * mountWebAppLazily(app, services, authenticate);
 */
export function mountWebAppLazily(
  app: Hono<AppEnv>,
  services: WebDeps,
  authenticate: Authenticate,
): void {
  mountLazily(app, WEB_ROUTES, async () => {
    const { mountWebApp } = await import('./index.js');
    return (recorder) => mountWebApp(recorder, services, authenticate);
  });
}

/** The web app's 404 page (`notFoundPage`), its module loaded when a browser first needs it. */
export async function lazyNotFoundPage(c: AppContext): Promise<Response> {
  const { notFoundPage } = await import('./pages/not-found.js');
  return notFoundPage(c);
}
