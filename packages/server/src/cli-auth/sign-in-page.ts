import type { Hono } from 'hono';
import type { GatewayAuth } from '../auth/create-auth.js';
import { oauthErrorText } from '../auth/oauth-error-text.js';
import type { AppContext, AppEnv } from '../http/app-env.js';
import { safeRedirectPath } from '../http/safe-redirect.js';
import { asSignupRefusal, signupRefusalText } from '../invites/index.js';
import type { SignupPolicy } from '../invites/policy.js';
import { hiddenFields, html } from '../web/html.js';
import { standalonePage } from '../web/standalone-page.js';
import { callAuth, csrfToken, errorPage, formIsGenuine, readForm, seeOther } from './page-kit.js';

/** The CLI's sign-in page has no Tools tab to send an unlinked account to. */
const CLI_WORDING: Readonly<Record<string, string>> = {
  account_not_linked: 'That account is not linked to a Gateway user with this email.',
};

/** Where to go after signing in: one of the CLI pages, or nowhere (a broken link). */
function nextOf(candidate: string | undefined): string | undefined {
  return safeRedirectPath(candidate, { allow: ['/cli/'] });
}

/**
 * A minimal sign-in page for the CLI flows, for a browser that is not signed in yet: email and
 * password (sign in, or create an account), and a button per configured OAuth provider. Every
 * attempt goes through better-auth's own endpoints and rate limits; on success it returns to
 * `next` (a `/cli/` page).
 */
export function mountSignInPage(app: Hono<AppEnv>, services: SignInServices): void {
  app.get('/cli/sign-in', (c) => showSignIn(services, c));
  app.post('/cli/sign-in', (c) => signInWithPassword(services, c));
  app.post('/cli/sign-in/social', (c) => signInWithProvider(services, c));
}

/** What the CLI's sign-in page reads of the gateway's services. */
type SignInServices = {
  auth: GatewayAuth;
  authBaseUrl: string;
  baseUrl: string;
  signup: SignupPolicy;
};

/** The page, with `error` above the form when an attempt failed. */
function renderSignIn(
  services: SignInServices,
  c: AppContext,
  next: string,
  error?: string,
  status: 200 | 400 | 401 | 409 | 429 | 503 = 200,
) {
  const csrf = csrfToken(c, services);
  const social = services.auth.providers.map(
    (provider) => html`<form method="post" action="/cli/sign-in/social">
${hiddenFields({ provider: provider.id, next, csrf })}
<button type="submit">Continue with ${provider.name}</button>
</form>`,
  );
  const body = html`<h1>Sign in to Gateway</h1>
<p class="muted">The Gateway command-line client asked you to sign in.</p>
${error === undefined ? '' : html`<p class="error">${error}</p>`}
<form method="post" action="/cli/sign-in">
${hiddenFields({ next, csrf })}
<label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" required>
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required minlength="8">
<label for="name">Name <span class="muted">(only to create an account)</span></label><input id="name" name="name" type="text" autocomplete="name">
<button type="submit" name="action" value="sign-in">Sign in</button>
<button type="submit" name="action" value="sign-up">Create account</button>
</form>
${social}`;
  return standalonePage(c, 'Sign in', body, status);
}

/** `GET /cli/sign-in`: the page, saying why a provider sign-in came back refused. */
function showSignIn(services: SignInServices, c: AppContext) {
  const next = nextOf(c.req.query('next'));
  if (next === undefined)
    return errorPage(c, 400, 'Sign-in link broken', 'This sign-in link has no valid destination.');
  const code = c.req.query('error');
  const refusal = asSignupRefusal(code);
  return renderSignIn(
    services,
    c,
    next,
    refusal !== undefined
      ? signupRefusalText(services.signup, refusal)
      : code === undefined
        ? undefined
        : oauthErrorText(code, CLI_WORDING),
  );
}

/** `POST /cli/sign-in`: signs in, or creates an account, with an email and a password. */
async function signInWithPassword(services: SignInServices, c: AppContext) {
  const form = await readForm(c);
  const next = nextOf(form.next);
  if (next === undefined || !formIsGenuine(c, form)) {
    return errorPage(
      c,
      403,
      'Request refused',
      'This form was not sent from the Gateway sign-in page.',
    );
  }
  const email = form.email ?? '';
  const password = form.password ?? '';
  const signUp = form.action === 'sign-up';
  const result = signUp
    ? await callAuth(c, services, '/sign-up/email', {
        email,
        password,
        name: form.name?.trim() || email.split('@')[0] || email,
      })
    : await callAuth(c, services, '/sign-in/email', { email, password });
  if (result.status >= 200 && result.status < 300) return seeOther(c, next, result.cookies);
  const error = result.json.error;
  const message =
    typeof error === 'object' &&
    error !== null &&
    'message' in error &&
    typeof error.message === 'string'
      ? error.message
      : 'Sign-in failed.';
  if (result.status === 429)
    return renderSignIn(
      services,
      c,
      next,
      'Too many attempts from this address; wait a minute and try again.',
      429,
    );
  return renderSignIn(services, c, next, message, signUp ? 400 : 401);
}

/** `POST /cli/sign-in/social`: sends the browser to a provider to sign in there. */
async function signInWithProvider(services: SignInServices, c: AppContext) {
  const form = await readForm(c);
  const next = nextOf(form.next);
  const provider = services.auth.providers.find((candidate) => candidate.id === form.provider);
  if (next === undefined || provider === undefined || !formIsGenuine(c, form)) {
    return errorPage(
      c,
      403,
      'Request refused',
      'This form was not sent from the Gateway sign-in page.',
    );
  }
  const result = await callAuth(c, services, '/sign-in/social', {
    provider: provider.id,
    callbackURL: `${services.baseUrl}${next}`,
    errorCallbackURL: `${services.baseUrl}/cli/sign-in?next=${encodeURIComponent(next)}`,
    disableRedirect: true,
  });
  const url = result.json.url;
  if (result.status !== 200 || typeof url !== 'string') {
    if (result.status === 429)
      return renderSignIn(
        services,
        c,
        next,
        'Too many attempts from this address; wait a minute and try again.',
        429,
      );
    if (result.status === 503)
      return renderSignIn(
        services,
        c,
        next,
        `${provider.name} cannot be reached right now, so signing in with it cannot start. Try again in a minute, or sign in with your password.`,
        503,
      );
    return renderSignIn(
      services,
      c,
      next,
      `Could not start signing in with ${provider.name}.`,
      400,
    );
  }
  return seeOther(c, url, result.cookies);
}
