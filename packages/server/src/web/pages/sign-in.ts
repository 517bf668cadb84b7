import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { oauthErrorText } from '../../auth/oauth-error-text.js';
import { callAuth } from '../../cli-auth/page-kit.js';
import type { AppContext } from '../../http/app-env.js';
import { safeRedirectPath } from '../../http/safe-redirect.js';
import { viewerOf } from '../../identity/index.js';
import { asSignupRefusal, signupRefusalText } from '../../invites/index.js';
import { hidden } from '../components.js';
import { takeFlash } from '../flash.js';
import { type Html, html, htmlPage } from '../html.js';
import { readForm, seeOther, type WebKit } from '../kit.js';
import { layout } from '../layout.js';
import { dropInvite, signUpState, takeInvite } from './sign-up-notice.js';

interface FormState {
  next: string;
  error?: string | undefined;
  email?: string | undefined;
  name?: string | undefined;
}

function providerButtons(kit: WebKit, next: string, verb: string): Html {
  const providers = kit.services.auth.providers;
  if (providers.length === 0) return html``;
  return html`<div class="divider">or</div>
<div class="sign-in-providers">${providers.map(
    (provider) =>
      html`<form method="post" action="/sign-in/social">${hidden({ provider: provider.id, next })}<button type="submit" class="secondary">${verb} with ${provider.name}</button></form>`,
  )}</div>`;
}

function errorNotice(error: string | undefined): Html {
  return error === undefined ? html`` : html`<p class="notice error" role="alert">${error}</p>`;
}

function signInBody(kit: WebKit, state: FormState): Html {
  const signUp =
    state.next === '/tools' ? '/sign-up' : `/sign-up?next=${encodeURIComponent(state.next)}`;
  return html`<h1>Sign in to Gateway</h1>
<p class="lead">Your tools, their connections and your MCP endpoints.</p>
${errorNotice(state.error)}
<div class="card">
<form method="post" action="/sign-in">
${hidden({ next: state.next })}
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required value="${state.email ?? ''}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required minlength="8">
<div class="actions"><button type="submit">Sign in</button></div>
</form>
${providerButtons(kit, state.next, 'Continue')}
</div>
<p>New here? <a href="${signUp}">Create an account</a></p>`;
}

async function signUpBody(
  kit: WebKit,
  c: AppContext,
  state: FormState & { inviteInvalid?: boolean },
): Promise<Html> {
  const policy = await signUpState(c, kit.services, { inviteInvalid: state.inviteInvalid });
  const signIn =
    state.next === '/tools' ? '/sign-in' : `/sign-in?next=${encodeURIComponent(state.next)}`;
  return html`<h1>Create your account</h1>
<p class="lead">Connect tools once; use them from the web and from your AI clients.</p>
${policy.notices}
${errorNotice(state.error)}
${
  policy.showForm
    ? html`<div class="card">
<form method="post" action="/sign-up">
${hidden({ next: state.next })}
<label for="name">Name</label>
<input id="name" name="name" type="text" autocomplete="name" required maxlength="100" value="${state.name ?? ''}">
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required value="${state.email ?? policy.invite?.email ?? ''}">
<label for="password">Password<span class="hint">At least 8 characters</span></label>
<input id="password" name="password" type="password" autocomplete="new-password" required minlength="8">
<div class="actions"><button type="submit">Create account</button></div>
</form>
${providerButtons(kit, state.next, 'Sign up')}
</div>`
    : ''
}
<p>Have an account? <a href="${signIn}">Sign in</a></p>`;
}

function authErrorMessage(json: Record<string, unknown>, fallback: string): string {
  const error = json.error;
  if (typeof error === 'object' && error !== null && 'message' in error) {
    const message = error.message;
    if (typeof message === 'string' && message !== '') return message;
  }
  return fallback;
}

/** Where to go after signing in: a page of this site (never the API), else the Tools tab. */
function nextOf(candidate: string | undefined): string {
  return safeRedirectPath(candidate, { deny: ['/api/'] }) ?? '/tools';
}

function withCookies(c: AppContext, cookies: readonly string[]): void {
  for (const cookie of cookies) c.header('Set-Cookie', cookie, { append: true });
}

/**
 * The sign-in and sign-up pages (email and password, and a button per configured OAuth
 * provider), sign-out, and `/`, which sends a browser to its tools or to sign in. Every attempt
 * goes through better-auth's own endpoints, rate limits and first-user-admin hook.
 */
export function mountSignInPages(kit: WebKit): void {
  const { app } = kit;
  app.get('/', async (c) => c.redirect((await signedIn(kit, c)) ? '/tools' : '/sign-in', 302));
  app.get('/sign-in', (c) => showSignIn(kit, c));
  app.get('/sign-up', (c) => showSignUp(kit, c));
  app.post('/sign-in', (c) => signInWithPassword(kit, c));
  app.post('/sign-up', (c) => signUpWithPassword(kit, c));
  app.post('/sign-in/social', (c) => signInWithProvider(kit, c));
  app.post('/sign-out', (c) => signOut(kit, c));
}

/** Whether the request comes from a signed-in browser. */
async function signedIn(kit: WebKit, c: AppContext): Promise<boolean> {
  return (await viewerOf(c, kit.services.database, kit.authenticate)) !== undefined;
}

/** A page of the narrow layout, for a browser not signed in. */
function narrowPage(c: AppContext, title: string, body: Html, status: ContentfulStatusCode = 200) {
  return htmlPage(c, layout({ title, body, narrow: true, flash: takeFlash(c) }), status);
}

/** `GET /sign-in`: the form, saying why a provider sign-in came back refused. */
async function showSignIn(kit: WebKit, c: AppContext) {
  const { services } = kit;
  const next = nextOf(c.req.query('next'));
  const code = c.req.query('error');
  if (await signedIn(kit, c)) {
    // A connect that failed before better-auth knew where to send it back (a state mismatch, a
    // replayed callback) lands here: word it on the Tools tab, where it was started.
    return c.redirect(code === undefined ? next : `/tools?error=${encodeURIComponent(code)}`, 302);
  }
  // A sign-up the policy refused on the way back from a provider: worded from the code and
  // the current policy, never from text in the URL.
  const refusal = asSignupRefusal(code);
  const error = refusal
    ? signupRefusalText(services.signup, refusal)
    : code && oauthErrorText(code);
  return narrowPage(c, 'Sign in', signInBody(kit, { next, error }));
}

/** `GET /sign-up`: the form; an invite link's token goes into a cookie first. */
async function showSignUp(kit: WebKit, c: AppContext) {
  const { services } = kit;
  const next = nextOf(c.req.query('next'));
  if (await signedIn(kit, c)) return c.redirect(next, 302);
  const token = c.req.query('invite');
  if (token !== undefined) {
    // Into the cookie, then off the address bar, history and Referer.
    if (await takeInvite(c, services, token)) {
      return seeOther(
        c,
        next === '/tools' ? '/sign-up' : `/sign-up?next=${encodeURIComponent(next)}`,
      );
    }
    return narrowPage(c, 'Create account', await signUpBody(kit, c, { next, inviteInvalid: true }));
  }
  return narrowPage(c, 'Create account', await signUpBody(kit, c, { next }));
}

/** `POST /sign-in`: signs in with an email and a password. */
async function signInWithPassword(kit: WebKit, c: AppContext) {
  const { services } = kit;
  const form = await readForm(c);
  const next = nextOf(form.next);
  const email = form.email ?? '';
  const result = await callAuth(c, services, '/sign-in/email', {
    email,
    password: form.password ?? '',
  });
  if (result.status >= 200 && result.status < 300) {
    withCookies(c, result.cookies);
    return seeOther(c, next);
  }
  const error =
    result.status === 429
      ? 'Too many attempts from this address; wait a minute and try again.'
      : authErrorMessage(result.json, 'Signing in failed.');
  return narrowPage(
    c,
    'Sign in',
    signInBody(kit, { next, error, email }),
    result.status === 429 ? 429 : 401,
  );
}

/** `POST /sign-up`: creates an account with an email and a password. */
async function signUpWithPassword(kit: WebKit, c: AppContext) {
  const { services } = kit;
  const form = await readForm(c);
  const next = nextOf(form.next);
  const email = form.email ?? '';
  const name = form.name?.trim() || email.split('@')[0] || email;
  const result = await callAuth(c, services, '/sign-up/email', {
    email,
    password: form.password ?? '',
    name,
  });
  if (result.status >= 200 && result.status < 300) {
    withCookies(c, result.cookies);
    dropInvite(c, services);
    return seeOther(c, next, {
      kind: 'ok',
      text: `Welcome, ${name}.${(await hasToolsBelow(kit, result.json, next)) ? ' Connect your first tool below.' : ''}`,
    });
  }
  const error =
    result.status === 429
      ? 'Too many attempts from this address; wait a minute and try again.'
      : authErrorMessage(result.json, 'Creating the account failed.');
  const status =
    result.status === 429 || result.status === 409 || result.status === 403 ? result.status : 400;
  return narrowPage(
    c,
    'Create account',
    await signUpBody(kit, c, { next, error, email, name }),
    status,
  );
}

/** `POST /sign-in/social`: sends the browser to a provider to sign in there. */
async function signInWithProvider(kit: WebKit, c: AppContext) {
  const { services } = kit;
  const form = await readForm(c);
  const next = nextOf(form.next);
  const provider = services.auth.providers.find((candidate) => candidate.id === form.provider);
  if (provider === undefined) {
    return seeOther(c, '/sign-in', {
      kind: 'error',
      text: 'That sign-in provider is not set up here.',
    });
  }
  const result = await callAuth(c, services, '/sign-in/social', {
    provider: provider.id,
    callbackURL: `${services.baseUrl}${next}`,
    errorCallbackURL: `${services.baseUrl}/sign-in`,
    disableRedirect: true,
  });
  const url = result.json.url;
  if (result.status !== 200 || typeof url !== 'string') {
    return seeOther(c, '/sign-in', {
      kind: 'error',
      text:
        result.status === 429
          ? 'Too many attempts from this address; wait a minute and try again.'
          : result.status === 503
            ? `${provider.name} cannot be reached right now, so signing in with it cannot start. Try again in a minute, or sign in with your password.`
            : `Could not start signing in with ${provider.name}.`,
    });
  }
  withCookies(c, result.cookies);
  c.header('Cache-Control', 'no-store');
  return c.redirect(url, 303);
}

/** `POST /sign-out`: ends the session. */
async function signOut(kit: WebKit, c: AppContext) {
  const { services } = kit;
  const result = await callAuth(c, services, '/sign-out', {});
  withCookies(c, result.cookies);
  return seeOther(c, '/sign-in', { kind: 'info', text: 'You are signed out.' });
}

/**
 * Whether the page after sign-up lists tools to connect: the Tools tab, for a user whose role
 * allows some. A member of an empty default role would otherwise read "Connect your first tool
 * below" above "Your role allows no tools yet" (issue 18).
 */
async function hasToolsBelow(kit: WebKit, answer: Record<string, unknown>, next: string) {
  if (new URL(next, 'http://x').pathname !== '/tools') return false;
  const user = answer.user;
  const id = typeof user === 'object' && user !== null && 'id' in user ? user.id : undefined;
  if (typeof id !== 'string') return false;
  const { tools } = await kit.services.policy.resolveForUser(id);
  return tools.length > 0;
}
