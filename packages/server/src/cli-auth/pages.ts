import type { Hono } from 'hono';
import type { AppEnv } from '../http/app-env.js';
import type { Authenticate } from '../identity/index.js';
import type { SignupPolicy } from '../invites/policy.js';
import { mountAuthorizePage } from './authorize-page.js';
import { mountCompletePages } from './complete-page.js';
import { mountConnectPage } from './connect-page.js';
import type { CliPagesDeps } from './page-kit.js';
import { mountSignInPage } from './sign-in-page.js';

/**
 * Mounts the browser pages of the CLI flows on `app` now; the gateway mounts them lazily with
 * `mountCliPages` (index.ts), whose route list (`page-routes.ts`) must name every route this mounts.
 */
export function mountCliPagesNow(
  app: Hono<AppEnv>,
  services: CliPagesDeps & { signup: SignupPolicy },
  authenticate: Authenticate,
): void {
  const pages = { app, services, authenticate };
  mountSignInPage(app, services);
  mountAuthorizePage(pages);
  mountConnectPage(pages);
  mountCompletePages(pages);
}
