import { randomBytes } from 'node:crypto';
import type { Context, Hono } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { GatewayDatabase } from '../db/database.js';
import type { AppContext, AppEnv } from '../http/app-env.js';
import { readBodyText } from '../http/request-body.js';
import { type Authenticate, type Viewer, viewerOf } from '../identity/index.js';
import type { PolicyService } from '../policy/policy-service.js';
import { safeEqual } from '../secrets/index.js';
import { hiddenFields, html } from '../web/html.js';
import { standalonePage } from '../web/standalone-page.js';
import {
  type AuthorizationProblem,
  type AuthorizationRequest,
  checkAuthorizationRequest,
  packRequest,
  unpackRequest,
  withParams,
} from './authorization-request.js';
import type { ClientRegistry } from './clients.js';
import { issueCode } from './grants.js';

/** Where the authorization endpoint is. */
export const AUTHORIZE_PATH = '/oauth/authorize';
const CSRF_COOKIE = 'gw_oauth_csrf';
/** How many of the user's tools the consent page names before "and N more". */
const TOOLS_SHOWN = 30;

/** What the consent page reads of the gateway. */
export interface ConsentDeps {
  app: Hono<AppEnv>;
  services: { database: GatewayDatabase; baseUrl: string; policy: PolicyService };
  authenticate: Authenticate;
  clients: ClientRegistry;
  /** `{base_url}/mcp`: the only resource tokens are issued for. */
  resource: () => string;
}

function errorPage(
  c: AppContext,
  status: ContentfulStatusCode,
  message: string,
): Promise<Response> {
  return standalonePage(
    c,
    'Sign-in request refused',
    html`<h1>Sign-in request refused</h1>\n<p class="error">${message}</p>\n<p class="muted">Close this tab and connect again from your AI client.</p>`,
    status,
  );
}

/** A redirect back to the client (303 after a form, 302 after a GET), never cached. */
function toClient(c: AppContext, location: string, status: 302 | 303): Response {
  c.header('Cache-Control', 'no-store');
  return c.redirect(location, status);
}

function csrfToken(c: AppContext, secure: boolean): string {
  const existing = getCookie(c, CSRF_COOKIE);
  if (existing !== undefined && /^[A-Za-z0-9_-]{32,}$/.test(existing)) return existing;
  const token = randomBytes(24).toString('base64url');
  setCookie(c, CSRF_COOKIE, token, {
    path: '/oauth',
    httpOnly: true,
    sameSite: 'Strict',
    secure,
    maxAge: 60 * 60,
  });
  return token;
}

/** The consent page: who asks (name, redirect host, verified or not), as whom, for which tools. */
async function consentPage(
  deps: ConsentDeps,
  c: AppContext,
  viewer: Viewer,
  request: AuthorizationRequest,
  params: URLSearchParams,
): Promise<Response> {
  const { client } = request;
  const redirect = new URL(request.redirectUri);
  const where =
    redirect.protocol === 'https:'
      ? html`<strong>${redirect.host}</strong>`
      : redirect.protocol === 'http:'
        ? html`an app on this computer (<strong>${redirect.host}</strong>)`
        : html`the app that handles <strong>${redirect.protocol}</strong> links`;
  const identity =
    client.kind === 'cimd'
      ? html`<p class="muted">Identified by <strong>${new URL(client.clientId).host}</strong>, which publishes this client's details.</p>`
      : html`<p class="error"><strong>Unverified client.</strong> It registered itself and chose its own name; check that you just connected it.</p>`;
  const resolution = await deps.services.policy.resolveForUser(viewer.id);
  const tools = resolution.tools.map((tool) => tool.path);
  const shown = tools.slice(0, TOOLS_SHOWN).map((path) => html`<li><code>${path}</code></li>\n`);
  const more =
    tools.length > TOOLS_SHOWN
      ? html`<li class="muted">and ${tools.length - TOOLS_SHOWN} more</li>`
      : '';
  const toolList =
    tools.length === 0
      ? html`<p class="muted">Your role allows no tools yet.</p>`
      : html`<ul>\n${shown}${more}\n</ul>`;
  const fields: Record<string, string> = {
    csrf: csrfToken(c, deps.services.baseUrl.startsWith('https:')),
  };
  for (const [name, value] of params) fields[name] = value;
  const body = html`<h1>Allow ${client.name}?</h1>
<p><strong>${client.name}</strong> wants to use your Gateway tools as <strong>${viewer.email}</strong>. After you allow it, you return to ${where}.</p>
${identity}
<p>It can list and call the tools your role (<code>${viewer.roleId}</code>) allows, with your connections, until you delete it from your MCP endpoints:</p>
${toolList}
<form method="post" action="${AUTHORIZE_PATH}">
${hiddenFields(fields)}
<button type="submit" name="action" value="allow">Allow</button>
<button type="submit" name="action" value="deny">Deny</button>
</form>`;
  return standalonePage(c, `Allow ${client.name}`, body);
}

function refusal(c: AppContext, problem: AuthorizationProblem, iss: string, status: 302 | 303) {
  if (problem.to === 'page') return errorPage(c, 400, problem.message);
  return toClient(
    c,
    withParams(problem.redirectUri, {
      error: problem.error.code,
      error_description: problem.error.message,
      state: problem.state,
      iss,
    }),
    status,
  );
}

/** The form of a POST, every value of every field. */
async function readForm(c: Context): Promise<URLSearchParams> {
  const type = c.req.header('content-type') ?? '';
  if (!type.startsWith('application/x-www-form-urlencoded')) return new URLSearchParams();
  return new URLSearchParams(await readBodyText(c));
}

/**
 * The authorization endpoint (`GET /oauth/authorize`) and its consent form (`POST`). A request
 * whose client or redirect URI cannot be trusted is refused on a page; any other problem goes
 * back to the client's redirect URI with an OAuth error, `state` and `iss` (RFC 9207). A browser
 * not signed in goes to the web app's sign-in page (every method Gateway offers) and comes back.
 * The consent form is CSRF-protected (a `SameSite=Strict` cookie echoed in the form, on top of the
 * front door's Origin check) and the page cannot be framed. Allow redirects with a one-time code;
 * Deny with `access_denied`.
 */
export function mountConsentPage(deps: ConsentDeps): void {
  const { app, services, authenticate, clients } = deps;
  const iss = () => services.baseUrl;

  app.get(AUTHORIZE_PATH, async (c) => {
    const url = new URL(c.req.url);
    const pending = url.searchParams.get('pending');
    const params = pending === null ? url.searchParams : unpackRequest(pending);
    const checked = await checkAuthorizationRequest(params, clients, deps.resource());
    if (!checked.ok) return refusal(c, checked.problem, iss(), 302);
    const viewer = await viewerOf(c, services.database, authenticate);
    if (viewer === undefined) {
      const next = `${AUTHORIZE_PATH}?pending=${packRequest(params)}`;
      c.header('Cache-Control', 'no-store');
      return c.redirect(`/sign-in?next=${encodeURIComponent(next)}`, 302);
    }
    return consentPage(deps, c, viewer, checked.request, params);
  });

  app.post(AUTHORIZE_PATH, async (c) => {
    const form = await readForm(c);
    const cookie = getCookie(c, CSRF_COOKIE);
    const field = form.get('csrf');
    if (cookie === undefined || field === null || !safeEqual(cookie, field)) {
      return errorPage(c, 403, 'This form was not sent from the Gateway consent page.');
    }
    const checked = await checkAuthorizationRequest(form, clients, deps.resource());
    if (!checked.ok) return refusal(c, checked.problem, iss(), 303);
    const { request } = checked;
    const viewer = await viewerOf(c, services.database, authenticate);
    if (viewer === undefined) {
      return errorPage(c, 401, 'Your session ended; connect again from your AI client.');
    }
    if (form.get('action') !== 'allow') {
      return toClient(
        c,
        withParams(request.redirectUri, {
          error: 'access_denied',
          error_description: 'The user denied access',
          state: request.state,
          iss: iss(),
        }),
        303,
      );
    }
    const code = await issueCode(services.database.db, {
      clientId: request.client.clientId,
      userId: viewer.id,
      redirectUri: request.redirectUri,
      codeChallenge: request.codeChallenge,
      resource: request.resource,
      scope: request.scope,
    });
    await clients.touch(request.client.clientId);
    return toClient(
      c,
      withParams(request.redirectUri, { code, state: request.state, iss: iss() }),
      303,
    );
  });
}
