import { randomBytes } from 'node:crypto';
import type { Hono } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { GatewayAuth } from '../auth/create-auth.js';
import { forwardToAuth, toGatewayError } from '../auth/mount-auth.js';
import type { GatewayDatabase } from '../db/database.js';
import type { AppContext, AppEnv } from '../http/app-env.js';
import { readBodyText } from '../http/request-body.js';
import { type Authenticate, type Viewer, viewerOf } from '../identity/index.js';
import { safeEqual } from '../secrets/index.js';
import { html } from '../web/html.js';
import { standalonePage } from '../web/standalone-page.js';

const CSRF_COOKIE = 'gw_cli_csrf';

/** A page saying what went wrong, with no way onward but the CLI. */
export function errorPage(
  c: AppContext,
  status: ContentfulStatusCode,
  title: string,
  message: string,
): Promise<Response> {
  return standalonePage(
    c,
    title,
    html`<h1>${title}</h1>\n<p class="error">${message}</p>\n<p class="muted">Close this tab and run the command again.</p>`,
    status,
  );
}

/** A 303 to `location`, carrying `cookies` (Set-Cookie values from better-auth) along. */
export function seeOther(
  c: AppContext,
  location: string,
  cookies: readonly string[] = [],
): Response {
  for (const cookie of cookies) c.header('Set-Cookie', cookie, { append: true });
  c.header('Cache-Control', 'no-store');
  return c.redirect(location, 303);
}

/**
 * The form's CSRF token: a random value in a `SameSite=Strict` cookie, echoed in a hidden field
 * (double submit). Reuses the browser's current one.
 */
export function csrfToken(c: AppContext, services: { baseUrl: string }): string {
  const existing = getCookie(c, CSRF_COOKIE);
  if (existing !== undefined && /^[A-Za-z0-9_-]{32,}$/.test(existing)) return existing;
  const token = randomBytes(24).toString('base64url');
  setCookie(c, CSRF_COOKIE, token, {
    path: '/cli',
    httpOnly: true,
    sameSite: 'Strict',
    secure: services.baseUrl.startsWith('https:'),
    maxAge: 60 * 60,
  });
  return token;
}

/** What the CLI pages read of the gateway's services. */
export type CliPagesDeps = {
  database: GatewayDatabase;
  auth: GatewayAuth;
  authBaseUrl: string;
  baseUrl: string;
};

/** What the CLI pages are built from. */
export interface CliPages {
  app: Hono<AppEnv>;
  services: CliPagesDeps;
  /** The gateway's one `authenticate()`: the pages know who is signed in only through it. */
  authenticate: Authenticate;
}

/** The signed-in person of a CLI page request, or undefined. */
export function signedInViewer(pages: CliPages, c: AppContext): Promise<Viewer | undefined> {
  return viewerOf(c, pages.services.database, pages.authenticate);
}

/**
 * Whether a form post carries the CSRF cookie's value (double submit). The front door
 * (`requestGuard`) has already refused posts from other origins, `Origin: null` included; this
 * binds the form to the browser the page was rendered for.
 */
export function formIsGenuine(c: AppContext, form: Record<string, string>): boolean {
  const cookie = getCookie(c, CSRF_COOKIE);
  const field = form.csrf;
  return cookie !== undefined && field !== undefined && safeEqual(cookie, field);
}

/** The url-encoded form of a POST, as single strings. */
export async function readForm(c: AppContext): Promise<Record<string, string>> {
  const type = c.req.header('content-type') ?? '';
  if (!type.startsWith('application/x-www-form-urlencoded')) return {};
  const params = new URLSearchParams(await readBodyText(c));
  const form: Record<string, string> = {};
  for (const [key, value] of params) form[key] = value;
  return form;
}

/**
 * Calls better-auth's `path` (under `/api/auth`) for the browser behind `c`, with its cookies, as
 * a JSON POST from the gateway's own origin: sign-in, sign-up and link requests go through the
 * same handler, rate limits and checks as the web app's.
 */
export async function callAuth(
  c: AppContext,
  services: { auth: GatewayAuth; authBaseUrl: string },
  path: string,
  body: unknown,
): Promise<{ status: number; json: Record<string, unknown>; cookies: string[] }> {
  const headers = new Headers({
    'content-type': 'application/json',
    accept: 'application/json',
    origin: new URL(services.authBaseUrl).origin,
  });
  const cookie = c.req.header('cookie');
  if (cookie !== undefined) headers.set('cookie', cookie);
  const userAgent = c.req.header('user-agent');
  if (userAgent !== undefined) headers.set('user-agent', userAgent);
  const request = new Request(`${services.authBaseUrl}/api/auth${path}`, {
    method: 'POST',
    headers,
    body: JSON.stringify(body),
  });
  const response = await toGatewayError(await forwardToAuth(c, services.auth, request));
  let json: Record<string, unknown> = {};
  try {
    const parsed: unknown = await response.json();
    if (typeof parsed === 'object' && parsed !== null) json = parsed as Record<string, unknown>;
  } catch {
    // An empty or non-JSON answer: the status says enough.
  }
  return { status: response.status, json, cookies: response.headers.getSetCookie() };
}

/** Where to send a browser that is not signed in. */
export function signInLocation(c: AppContext): string {
  const url = new URL(c.req.url);
  return `/cli/sign-in?next=${encodeURIComponent(url.pathname + url.search)}`;
}
