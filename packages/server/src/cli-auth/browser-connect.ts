import type { z } from 'zod';
import type { AppContext } from '../http/app-env.js';
import type { Viewer } from '../identity/index.js';
import { type Html, hiddenFields, html } from '../web/html.js';
import { standalonePage } from '../web/standalone-page.js';
import { loopbackRedirect, loopbackRequest, withParams } from './loopback.js';
import {
  type CliPages,
  type CliPagesDeps,
  callAuth,
  csrfToken,
  errorPage,
  formIsGenuine,
  readForm,
  seeOther,
  signedInViewer,
  signInLocation,
} from './page-kit.js';

/** What `gateway connect <id>` connects, as its browser page names it. */
export interface ConnectTarget {
  /** The id in the page's path and in the `provider` the CLI is told. */
  id: string;
  /** The name the page shows: "Connect <name>". */
  name: string;
  /** What the user connects: "your GitHub account", "your account at the upstream MCP server x". */
  account: string;
  /** What it is for: "so your tools can use it". */
  purpose: string;
  /** Where the user signs in next: "GitHub", "its authorization server". */
  signInAt: string;
  /** The label of the button that goes on. */
  continueLabel: string;
}

/**
 * How a connect starts: the URL to send the browser to (with better-auth's cookies), or the error
 * code the CLI is told and, where the refusal says more, its message for the Tools tab.
 */
export type ConnectStart =
  | { url: string; cookies?: readonly string[] }
  | { error: string; message?: string };

/** One kind of connect: what differs between an OAuth sign-in provider and an upstream source. */
export interface BrowserConnect {
  /** The page's route, its one parameter naming the target: `/cli/connect/:provider`. */
  route: string;
  /** The page's path for the target `id` (its form posts there). */
  path(id: string): string;
  /** The target the request's path names, if there is one to connect. */
  target(c: AppContext): Promise<ConnectTarget | undefined>;
  /** The page for a path that names nothing to connect (a 404). */
  unknown(c: AppContext): Promise<Response>;
  /** Starts the connect at the provider for the signed-in `viewer`. */
  start(
    c: AppContext,
    target: ConnectTarget,
    viewer: Viewer,
    request: z.infer<typeof loopbackRequest>,
  ): Promise<ConnectStart>;
}

const REQUEST_REFUSED = 'The request needs state and a loopback redirect_uri.';

/**
 * The browser half of `gateway connect <id>`, for every kind of connect: `GET` asks the signed-in
 * user to confirm (a browser not signed in goes to the CLI sign-in page first), `POST` checks the
 * form (loopback `redirect_uri`, CSRF double submit) and either tells the CLI the user cancelled
 * or starts the connect at the provider. How it ends is the kind's own (a callback or a `done`
 * page), which answers the CLI with {@link answerCli}.
 *
 * @example
 * mountBrowserConnect(pages, { route: '/cli/connect/:provider', path, target, unknown, start });
 */
export function mountBrowserConnect(pages: CliPages, flow: BrowserConnect): void {
  const { app, services } = pages;

  app.get(flow.route, async (c) => {
    const target = await flow.target(c);
    if (target === undefined) return flow.unknown(c);
    const parsed = loopbackRequest.safeParse(c.req.query());
    if (!parsed.success || loopbackRedirect(parsed.data.redirect_uri) === undefined) {
      return errorPage(c, 400, 'Connect request refused', REQUEST_REFUSED);
    }
    const signedIn = await signedInViewer(pages, c);
    if (!signedIn) return c.redirect(signInLocation(c), 302);
    const body = html`<h1>Connect ${target.name}</h1>
<p>Connect ${target.account} to Gateway as <strong>${signedIn.email}</strong>, ${target.purpose}.</p>
<p class="muted">You will sign in at ${target.signInAt}; the command line gets told when you are done.</p>
<form method="post" action="${flow.path(target.id)}">
${hiddenFields({ ...parsed.data, csrf: csrfToken(c, services) })}
<button type="submit" name="action" value="connect">${target.continueLabel}</button>
<button type="submit" name="action" value="cancel">Cancel</button>
</form>`;
    return standalonePage(c, `Connect ${target.name}`, body);
  });

  app.post(flow.route, async (c) => {
    const target = await flow.target(c);
    if (target === undefined) return flow.unknown(c);
    const form = await readForm(c);
    const parsed = loopbackRequest.safeParse(form);
    const redirect = parsed.success ? loopbackRedirect(parsed.data.redirect_uri) : undefined;
    if (!parsed.success || redirect === undefined) {
      return errorPage(c, 400, 'Connect request refused', REQUEST_REFUSED);
    }
    if (!formIsGenuine(c, form)) {
      return errorPage(
        c,
        403,
        'Request refused',
        'This form was not sent from the Gateway connect page.',
      );
    }
    const answer = { state: parsed.data.state, provider: target.id };
    if (form.action !== 'connect') return answerCli(c, redirect, answer, 'access_denied');
    const signedIn = await signedInViewer(pages, c);
    if (!signedIn) {
      return errorPage(c, 401, 'Not signed in', 'Your session ended; run the command again.');
    }
    const started = await flow.start(c, target, signedIn, parsed.data);
    if ('error' in started) return answerCli(c, redirect, answer, started.error);
    return seeOther(c, started.url, started.cookies);
  });
}

/**
 * Sends the browser to the CLI's loopback listener with how the connect ended: `status=connected`
 * and `complete_uri` (the gateway page the listener sends the browser on to), or `error=<code>`;
 * always the CLI's `state` and the `provider` connected. Nothing secret: the tokens stay here.
 */
export function answerCli(
  c: AppContext,
  redirect: URL,
  answer: { state: string; provider: string },
  outcome: { completeUri: string } | string,
): Response {
  const params: Record<string, string> =
    typeof outcome === 'string'
      ? { state: answer.state, provider: answer.provider, error: outcome }
      : {
          state: answer.state,
          complete_uri: outcome.completeUri,
          provider: answer.provider,
          status: 'connected',
        };
  return seeOther(c, withParams(redirect, params));
}

const BACK_TO_TERMINAL = html`<p class="muted">Go back to your terminal; you can close this tab.</p>`;

/**
 * The page a connect ends on, which the CLI's listener sends the browser to: "<name> connected"
 * with `message` and a link to the Tools tab, or "<name> is not connected" with `message` saying
 * what to run. The caller reads whether it is connected from the database, never from the URL.
 */
export function connectCompletePage(
  c: AppContext,
  name: string,
  outcome: { connected: boolean; message: Html },
): Promise<Response> {
  if (!outcome.connected) {
    return standalonePage(
      c,
      `${name} not connected`,
      html`<h1>${name} is not connected</h1>
<p class="notice error" role="alert">${outcome.message}</p>
${BACK_TO_TERMINAL}`,
    );
  }
  return standalonePage(
    c,
    `${name} connected`,
    html`<h1>${name} connected</h1>
<p class="notice ok" role="status">${outcome.message}</p>
${BACK_TO_TERMINAL}
<p><a href="/tools">Open your tools</a></p>`,
  );
}

/**
 * Starts better-auth's link flow of sign-in provider `provider` for the browser behind `c`: the
 * one start of a provider's connect, for `gateway connect` and the Tools tab alike. It ends at
 * `callbackURL` (`errorCallbackURL` with `?error=`). Refused: `rate_limited` (429),
 * `provider_unavailable` (503, the provider cannot be reached), else `server_error`.
 *
 * @example
 * const started = await startProviderLink(c, services, 'github', { callbackURL, errorCallbackURL });
 */
export async function startProviderLink(
  c: AppContext,
  services: Pick<CliPagesDeps, 'auth' | 'authBaseUrl'>,
  provider: string,
  back: { callbackURL: string; errorCallbackURL: string },
): Promise<ConnectStart> {
  const result = await callAuth(c, services, '/link-social', {
    provider,
    ...back,
    disableRedirect: true,
  });
  const url = result.json.url;
  if (result.status === 200 && typeof url === 'string') return { url, cookies: result.cookies };
  const error =
    result.status === 429
      ? 'rate_limited'
      : result.status === 503
        ? 'provider_unavailable'
        : 'server_error';
  return { error };
}
