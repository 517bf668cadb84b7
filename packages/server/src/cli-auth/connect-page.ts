import type { AppContext } from '../http/app-env.js';
import { finishConnectFlow, startConnectFlow } from './codes.js';
import { connectCompletePath } from './complete-page.js';
import { escapeHtml, hiddenFields, page } from './html.js';
import { loopbackRedirect, loopbackRequest, withParams } from './loopback.js';
import {
  type CliPages,
  callAuth,
  csrfToken,
  errorPage,
  formIsGenuine,
  htmlResponse,
  readForm,
  seeOther,
  signedInViewer,
  signInLocation,
} from './page-kit.js';

/**
 * `GET /cli/connect/<provider>`: the browser half of `gateway connect <provider>` for an OAuth
 * provider. The signed-in user confirms; the gateway starts better-auth's link flow for that
 * provider (`/api/auth/link-social`), and when the provider hands back, `/cli/connect/<provider>/done`
 * redirects to the CLI's loopback `redirect_uri` with `state`, `provider` and `status=connected`
 * (or `error=<code>`), plus `complete_uri`, the gateway page the listener sends the browser on
 * to. Nothing secret reaches the loopback: the tokens stay on the server.
 */
export function mountConnectPage(pages: CliPages): void {
  const { app, services } = pages;
  const provider = (c: AppContext) =>
    services.auth.providers.find((candidate) => candidate.id === c.req.param('provider'));
  const notConfigured = (c: AppContext) =>
    errorPage(
      c,
      404,
      'Provider not available',
      `"${c.req.param('provider')}" is not an OAuth provider this gateway has configured. API-key tools are connected with \`gateway connect\` prompting for the key.`,
    );

  app.get('/cli/connect/:provider', async (c) => {
    const target = provider(c);
    if (!target) return notConfigured(c);
    const parsed = loopbackRequest.safeParse(c.req.query());
    const redirect = parsed.success ? loopbackRedirect(parsed.data.redirect_uri) : undefined;
    if (!parsed.success || !redirect) {
      return errorPage(
        c,
        400,
        'Connect request refused',
        'The request needs state and a loopback redirect_uri.',
      );
    }
    const signedIn = await signedInViewer(pages, c);
    if (!signedIn) return c.redirect(signInLocation(c), 302);
    const body = `<h1>Connect ${escapeHtml(target.name)}</h1>
<p>Connect your ${escapeHtml(target.name)} account to Gateway as <strong>${escapeHtml(signedIn.email)}</strong>, so your tools can use it.</p>
<p class="muted">You will sign in at ${escapeHtml(target.name)}; the command line gets told when you are done.</p>
<form method="post" action="/cli/connect/${escapeHtml(encodeURIComponent(target.id))}">
${hiddenFields({ ...parsed.data, csrf: csrfToken(c, services) })}
<button type="submit" name="action" value="connect">Continue to ${escapeHtml(target.name)}</button>
<button type="submit" name="action" value="cancel">Cancel</button>
</form>`;
    return htmlResponse(c, page(`Connect ${target.name}`, body));
  });

  app.post('/cli/connect/:provider', async (c) => {
    const target = provider(c);
    if (!target) return notConfigured(c);
    const form = await readForm(c);
    const parsed = loopbackRequest.safeParse(form);
    const redirect = parsed.success ? loopbackRedirect(parsed.data.redirect_uri) : undefined;
    if (!parsed.success || !redirect) {
      return errorPage(
        c,
        400,
        'Connect request refused',
        'The request needs state and a loopback redirect_uri.',
      );
    }
    if (!formIsGenuine(c, form)) {
      return errorPage(
        c,
        403,
        'Request refused',
        'This form was not sent from the Gateway connect page.',
      );
    }
    const { state } = parsed.data;
    if (form.action !== 'connect')
      return seeOther(c, withParams(redirect, { error: 'access_denied', state }));
    const signedIn = await signedInViewer(pages, c);
    if (!signedIn)
      return errorPage(c, 401, 'Not signed in', 'Your session ended; run the command again.');

    const flow = await startConnectFlow(services.database.db, {
      userId: signedIn.id,
      redirectUri: parsed.data.redirect_uri,
      state,
      provider: target.id,
    });
    const done = `${services.baseUrl}/cli/connect/${encodeURIComponent(target.id)}/done?flow=${flow}`;
    const result = await callAuth(c, services, '/link-social', {
      provider: target.id,
      callbackURL: done,
      errorCallbackURL: done,
      disableRedirect: true,
    });
    const url = result.json.url;
    if (result.status !== 200 || typeof url !== 'string') {
      await finishConnectFlow(services.database.db, flow);
      const reason =
        result.status === 429
          ? 'rate_limited'
          : result.status === 503
            ? 'provider_unavailable'
            : 'server_error';
      return seeOther(c, withParams(redirect, { error: reason, state, provider: target.id }));
    }
    return seeOther(c, url, result.cookies);
  });

  app.get('/cli/connect/:provider/done', async (c) => {
    const flowId = c.req.query('flow');
    const flow =
      flowId === undefined ? undefined : await finishConnectFlow(services.database.db, flowId);
    const redirect = flow === undefined ? undefined : loopbackRedirect(flow.redirectUri);
    if (!flow || !redirect || flow.provider !== c.req.param('provider')) {
      return errorPage(
        c,
        400,
        'Connect link expired',
        'This connect link is unknown, used or expired.',
      );
    }
    const signedIn = await signedInViewer(pages, c);
    const base = { state: flow.state, provider: flow.provider };
    if (signedIn?.id !== flow.userId)
      return seeOther(c, withParams(redirect, { ...base, error: 'session_changed' }));
    const error = c.req.query('error');
    if (error !== undefined) return seeOther(c, withParams(redirect, { ...base, error }));
    // `complete_uri`: the CLI's listener sends the browser on to this gateway page.
    const complete = `${services.baseUrl}${connectCompletePath(flow.provider)}`;
    return seeOther(
      c,
      withParams(redirect, {
        state: flow.state,
        complete_uri: complete,
        provider: flow.provider,
        status: 'connected',
      }),
    );
  });
}
