import type { Context, Hono } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { approvalPageSchema } from '../approvals/schemas.js';
import type { GatewayAuth } from '../auth/create-auth.js';
import type { GatewayDatabase } from '../db/database.js';
import type { AppContext, AppEnv } from '../http/app-env.js';
import { readBodyText } from '../http/request-body.js';
import type { Authenticate } from '../identity/index.js';
import { type Viewer, viewerOf } from '../identity/index.js';
import type { SignupPolicy } from '../invites/policy.js';
import type { PolicyService } from '../policy/policy-service.js';
import type { PluginCatalog } from '../registry/plugin-catalog.js';
import type { UpstreamOAuthService } from '../upstream-oauth/service.js';
import { type ApiClient, ApiError, apiFor, withQuery } from './api.js';
import { type Flash, setFlash, takeFlash } from './flash.js';
import { html, htmlPage } from './html.js';
import { type LayoutOptions, layout } from './layout.js';

/** What the web app's pages and form handlers read of the gateway's services. */
export type WebDeps = {
  auth: GatewayAuth;
  authBaseUrl: string;
  baseUrl: string;
  database: GatewayDatabase;
  defaultRoleId: string;
  plugins: PluginCatalog;
  policy: PolicyService;
  signup: SignupPolicy;
  upstreamOAuth: UpstreamOAuthService;
};

/** What every page and form handler of the web app is built from. */
export interface WebKit {
  app: Hono<AppEnv>;
  services: WebDeps;
  /** The gateway's one `authenticate()`: pages know their viewer only through it. */
  authenticate: Authenticate;
}

/** A request of a signed-in viewer. */
export interface PageContext {
  c: AppContext;
  viewer: Viewer;
  api: ApiClient;
  services: WebDeps;
  /** Renders a page in the layout, with the pending flash message and approvals badge. */
  render(
    options: Omit<LayoutOptions, 'viewer' | 'flash' | 'pendingApprovals'>,
    status?: ContentfulStatusCode,
  ): Promise<Response>;
}

/** A 303 to `location` (a path on this site), with a message for the next page. */
export function seeOther(c: AppContext, location: string, flash?: Flash): Response {
  if (flash !== undefined) setFlash(c, flash);
  c.header('Cache-Control', 'no-store');
  return c.redirect(location, 303);
}

function pageContext(kit: WebKit, c: AppContext, viewer: Viewer): PageContext {
  const api = apiFor(kit.app, c, viewer.principal);
  return {
    c,
    viewer,
    api,
    services: kit.services,
    async render(options, status = 200) {
      const flash = takeFlash(c);
      let pending = 0;
      try {
        const page = await api.get(
          withQuery('/api/approvals', { userId: viewer.id, limit: '200' }),
          approvalPageSchema,
        );
        pending = page.approvals.length;
      } catch {
        // The badge is a convenience; the page renders without it.
      }
      return htmlPage(c, layout({ ...options, viewer, flash, pendingApprovals: pending }), status);
    },
  };
}

function signInRedirect(c: AppContext): Response {
  const url = new URL(c.req.url);
  return c.redirect(`/sign-in?next=${encodeURIComponent(url.pathname + url.search)}`, 302);
}

/** A page saying what went wrong, in the layout. */
export function errorPage(
  ctx: PageContext,
  status: ContentfulStatusCode,
  title: string,
  message: string,
): Promise<Response> {
  return ctx.render(
    {
      title,
      body: html`<h1>${title}</h1><p class="notice error" role="alert">${message}</p><p><a href="/tools">Back to your tools</a></p>`,
    },
    status,
  );
}

function statusOf(error: ApiError): ContentfulStatusCode {
  return error.status >= 400 && error.status < 600 ? (error.status as ContentfulStatusCode) : 500;
}

/**
 * A GET page for signed-in users (`admin`: admins only). A browser without a session goes to the
 * sign-in page and comes back; an API error becomes an error page with its status.
 */
export function page(
  kit: WebKit,
  handler: (ctx: PageContext) => Promise<Response>,
  options: { admin?: boolean } = {},
) {
  return async (c: Context<AppEnv>): Promise<Response> => {
    const viewer = await viewerOf(c, kit.services.database, kit.authenticate);
    if (viewer === undefined) return signInRedirect(c);
    const ctx = pageContext(kit, c, viewer);
    if (options.admin && !viewer.isAdmin) {
      return errorPage(ctx, 403, 'Admins only', 'Only an admin may open this page.');
    }
    try {
      return await handler(ctx);
    } catch (error) {
      if (error instanceof ApiError) {
        return errorPage(ctx, statusOf(error), 'Something went wrong', error.message);
      }
      throw error;
    }
  };
}

/** The url-encoded form of a POST, as single strings. */
export async function readForm(c: AppContext): Promise<Record<string, string>> {
  const type = c.req.header('content-type') ?? '';
  if (!type.startsWith('application/x-www-form-urlencoded')) return {};
  const form: Record<string, string> = {};
  for (const [key, value] of new URLSearchParams(await readBodyText(c))) form[key] = value;
  return form;
}

/**
 * Every value of the form field `name`, in order: a field sent several times, like checkboxes
 * sharing a name, which {@link readForm} keeps only the last of. (Hono keeps the body, so this
 * reads it again after `readForm`.)
 *
 * @example
 * const names = await readFormValues(ctx.c, 'approvalRequired');
 */
export async function readFormValues(c: AppContext, name: string): Promise<string[]> {
  const type = c.req.header('content-type') ?? '';
  if (!type.startsWith('application/x-www-form-urlencoded')) return [];
  return new URLSearchParams(await readBodyText(c)).getAll(name);
}

/**
 * A form post of a signed-in user (the front door has already refused posts from other sites),
 * handled; an API error goes back to `back` with its message.
 */
export function action(
  kit: WebKit,
  back: string | ((c: AppContext) => string),
  handler: (ctx: PageContext, form: Record<string, string>) => Promise<Response>,
  options: { admin?: boolean } = {},
) {
  return async (c: Context<AppEnv>): Promise<Response> => {
    const viewer = await viewerOf(c, kit.services.database, kit.authenticate);
    if (viewer === undefined)
      return seeOther(c, '/sign-in', { kind: 'info', text: 'Your session ended; sign in again.' });
    const ctx = pageContext(kit, c, viewer);
    const backTo = typeof back === 'string' ? back : back(c);
    if (options.admin && !viewer.isAdmin) {
      return seeOther(c, backTo, { kind: 'error', text: 'Only an admin may do this.' });
    }
    try {
      return await handler(ctx, await readForm(c));
    } catch (error) {
      if (error instanceof ApiError)
        return seeOther(c, backTo, { kind: 'error', text: error.message });
      throw error;
    }
  };
}
