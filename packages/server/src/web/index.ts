import type { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { AppEnv } from '../http/app-env.js';
import type { GatewayServices } from '../services.js';
import { mountAssets } from './assets/index.js';
import { html } from './html.js';
import { htmlPage, type WebKit } from './kit.js';
import { layout } from './layout.js';
import { mountExecutionsPage } from './pages/admin/executions.js';
import { mountInvitesPage } from './pages/admin/invites.js';
import { mountRolesPage } from './pages/admin/roles.js';
import { mountServiceAccountsPage } from './pages/admin/service-accounts.js';
import { mountUsersPage } from './pages/admin/users.js';
import { mountApprovalsPage } from './pages/approvals.js';
import { mountEndpointsPage } from './pages/endpoints.js';
import { mountSignInPages } from './pages/sign-in.js';
import { mountTeamPage } from './pages/team.js';
import { mountToolsPage } from './pages/tools.js';

/** Where the web app's forms post. */
const FORM_PATHS = [
  '/sign-in',
  '/sign-in/*',
  '/sign-up',
  '/sign-out',
  '/tools/*',
  '/team/*',
  '/endpoints',
  '/endpoints/*',
  '/approvals/*',
  '/admin/*',
];

/**
 * Mounts the web app at `/`: sign-in and sign-up, the Tools tab, team tools, MCP endpoints,
 * approvals and the admin pages, with their stylesheet and script under `/assets/`. Pages are
 * rendered on the server and read and write through the gateway's own JSON API, in process, as
 * the signed-in user.
 *
 * @example
 * mountWebApp(app, services);
 */
export function mountWebApp(app: Hono<AppEnv>, services: GatewayServices): void {
  const kit: WebKit = { app, services };
  // The API's own limit covers only /api/*; a form is never near 1 MiB (1000 role patterns).
  app.on(
    'POST',
    FORM_PATHS,
    bodyLimit({
      maxSize: 1024 * 1024,
      onError: (c) =>
        htmlPage(
          c,
          layout({
            title: 'Too large',
            narrow: true,
            body: html`<h1>Too large</h1><p class="notice error" role="alert">The form is larger than 1 MiB.</p>`,
          }),
          413,
        ),
    }),
  );
  mountAssets(app);
  mountSignInPages(kit);
  mountToolsPage(kit);
  mountTeamPage(kit);
  mountEndpointsPage(kit);
  mountApprovalsPage(kit);
  mountRolesPage(kit);
  mountUsersPage(kit);
  mountServiceAccountsPage(kit);
  mountInvitesPage(kit);
  mountExecutionsPage(kit);
}

export { standalonePage } from './standalone-page.js';
