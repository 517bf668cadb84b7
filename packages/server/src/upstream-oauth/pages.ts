import { escapeHtml, hiddenFields, page } from '../cli-auth/html.js';
import { loopbackRedirect, loopbackRequest, withParams } from '../cli-auth/loopback.js';
import {
  type CliPages,
  csrfToken,
  errorPage,
  formIsGenuine,
  htmlResponse,
  readForm,
  seeOther,
  signedInViewer,
  signInLocation,
} from '../cli-auth/page-kit.js';
import { errorResponse, HttpError } from '../http/errors.js';
import { httpErrorOf } from '../http/route.js';
import { oauthToolId, PLUGIN_OAUTH_PREFIX } from '../upstream/oauth-hooks.js';
import { CLIENT_METADATA_MAX_AGE_SECONDS, CLIENT_METADATA_PATH } from './client-metadata.js';
import { ConnectError } from './connect-error.js';
import { UPSTREAM_CALLBACK_PATH, type UpstreamOAuthService } from './service.js';

const CLI_PAGE = '/cli/connect-upstream/:source';

/** The path of the CLI's browser page for connecting upstream source `sourceId`. */
export function cliUpstreamConnectPath(sourceId: string): string {
  return `/cli/connect-upstream/${encodeURIComponent(sourceId)}`;
}

/**
 * The browser pages of per-user OAuth to upstream MCP servers: the callback every upstream's
 * authorization server redirects to (`/oauth/upstream/callback`), the gateway's Client ID
 * Metadata Document (`/oauth/client-metadata.json`, which those servers fetch), and the CLI's
 * `/cli/connect-upstream/<source>` (the browser half of `gateway connect <source>`). The web
 * app's Tools tab starts its connects itself (`/tools/oauth/mcp.<source>/connect`).
 *
 * @example
 * mountUpstreamOAuthPages({ app, services, authenticate }, services.upstreamOAuth);
 */
export function mountUpstreamOAuthPages(pages: CliPages, oauth: UpstreamOAuthService): void {
  const { app, services } = pages;

  app.get(CLIENT_METADATA_PATH, (c) => {
    const offered = oauth.clientMetadataDocument();
    if ('none' in offered) return errorResponse(c, new HttpError('not_found', offered.none));
    c.header('cache-control', `public, max-age=${CLIENT_METADATA_MAX_AGE_SECONDS}`);
    return c.json(offered.document);
  });

  app.get(UPSTREAM_CALLBACK_PATH, async (c) => {
    const viewer = await signedInViewer(pages, c);
    if (viewer === undefined) {
      // The flow is left as it is: signed in again in this browser, the same answer completes it.
      return errorPage(
        c,
        401,
        'Not signed in',
        'This browser is not signed in to Gateway (the session may have ended), so the connect cannot be completed here. Sign in, then open this page again or start connecting again.',
      );
    }
    try {
      const flow = await oauth.finish({ viewerId: viewer.id, query: c.req.query() });
      if (flow.returnTo.kind === 'cli') {
        const redirect = loopbackRedirect(flow.returnTo.redirectUri);
        if (redirect !== undefined) {
          return seeOther(
            c,
            withParams(redirect, {
              state: flow.returnTo.state,
              provider: flow.sourceId,
              status: 'connected',
              complete_uri: `${services.baseUrl}${cliUpstreamConnectPath(flow.sourceId)}/complete`,
            }),
          );
        }
      }
      return seeOther(c, `/tools?connected=${encodeURIComponent(oauthToolId(flow.sourceId))}`);
    } catch (error) {
      if (!(error instanceof ConnectError)) throw error;
      const back = error.flow?.returnTo;
      if (back?.kind === 'cli') {
        const redirect = loopbackRedirect(back.redirectUri);
        if (redirect !== undefined) {
          return seeOther(
            c,
            withParams(redirect, {
              state: back.state,
              provider: error.flow?.sourceId ?? '',
              error: error.code,
            }),
          );
        }
      }
      return errorPage(c, 400, 'Connect refused', error.message);
    }
  });

  app.get(CLI_PAGE, async (c) => {
    const sourceId = c.req.param('source') ?? '';
    if (!(await oauth.isOAuthSource(sourceId))) return notAnOAuthSource(c, sourceId);
    const parsed = loopbackRequest.safeParse(c.req.query());
    if (!parsed.success || loopbackRedirect(parsed.data.redirect_uri) === undefined) {
      return errorPage(
        c,
        400,
        'Connect request refused',
        'The request needs state and a loopback redirect_uri.',
      );
    }
    const signedIn = await signedInViewer(pages, c);
    if (!signedIn) return c.redirect(signInLocation(c), 302);
    const body = `<h1>Connect ${escapeHtml(shownName(sourceId))}</h1>
<p>Connect your account at ${escapeHtml(describeSource(sourceId))} to Gateway as <strong>${escapeHtml(signedIn.email)}</strong>, so its tools run as you.</p>
<p class="muted">You will sign in at its authorization server; the command line gets told when you are done.</p>
<form method="post" action="${escapeHtml(cliUpstreamConnectPath(sourceId))}">
${hiddenFields({ ...parsed.data, csrf: csrfToken(c, services) })}
<button type="submit" name="action" value="connect">Continue</button>
<button type="submit" name="action" value="cancel">Cancel</button>
</form>`;
    return htmlResponse(c, page(`Connect ${shownName(sourceId)}`, body));
  });

  app.post(CLI_PAGE, async (c) => {
    const sourceId = c.req.param('source') ?? '';
    if (!(await oauth.isOAuthSource(sourceId))) return notAnOAuthSource(c, sourceId);
    const form = await readForm(c);
    const parsed = loopbackRequest.safeParse(form);
    const redirect = parsed.success ? loopbackRedirect(parsed.data.redirect_uri) : undefined;
    if (!parsed.success || redirect === undefined) {
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
    if (form.action !== 'connect') {
      return seeOther(
        c,
        withParams(redirect, { error: 'access_denied', state, provider: sourceId }),
      );
    }
    const signedIn = await signedInViewer(pages, c);
    if (!signedIn) {
      return errorPage(c, 401, 'Not signed in', 'Your session ended; run the command again.');
    }
    try {
      const url = await oauth.start({
        userId: signedIn.id,
        sourceId,
        returnTo: { kind: 'cli', redirectUri: parsed.data.redirect_uri, state },
      });
      return seeOther(c, url);
    } catch (error) {
      const refused = httpErrorOf(error);
      if (refused === undefined) throw error;
      return seeOther(
        c,
        withParams(redirect, {
          state,
          provider: sourceId,
          error:
            refused.code === 'service_unavailable' ? 'provider_unavailable' : 'provider_refused',
        }),
      );
    }
  });

  app.get(`${CLI_PAGE}/complete`, async (c) => {
    const sourceId = c.req.param('source') ?? '';
    const signedIn = await signedInViewer(pages, c);
    const name = escapeHtml(shownName(sourceId));
    const connected =
      signedIn !== undefined && (await oauth.accessToken(signedIn.id, sourceId)).ok === true;
    const body = connected
      ? `<h1>${name} connected</h1>
<p class="notice ok" role="status">Your account at ${escapeHtml(describeSource(sourceId))} is connected to Gateway. Its tools run as you now, and the command line has been told.</p>
<p class="muted">Go back to your terminal; you can close this tab.</p>
<p><a href="/tools">Open your tools</a></p>`
      : `<h1>${name} is not connected</h1>
<p class="notice error" role="alert">Run <code>gateway connect ${name}</code> again.</p>`;
    return htmlResponse(
      c,
      page(
        connected ? `${shownName(sourceId)} connected` : `${shownName(sourceId)} not connected`,
        body,
      ),
    );
  });
}

/** How a key is shown: a plugin provider's id (`@notion` is `notion`), else the source id. */
function shownName(sourceId: string): string {
  return sourceId.startsWith(PLUGIN_OAUTH_PREFIX)
    ? sourceId.slice(PLUGIN_OAUTH_PREFIX.length)
    : sourceId;
}

function describeSource(sourceId: string): string {
  return sourceId.startsWith(PLUGIN_OAUTH_PREFIX)
    ? `the OAuth provider ${shownName(sourceId)}`
    : `the upstream MCP server ${sourceId}`;
}

function notAnOAuthSource(c: Parameters<typeof errorPage>[0], sourceId: string): Response {
  return errorPage(
    c,
    404,
    'Source not available',
    sourceId.startsWith(PLUGIN_OAUTH_PREFIX)
      ? `"${shownName(sourceId)}" is not an OAuth provider of a loaded plugin whose client this gateway's admin has set up.`
      : `"${sourceId}" is not an upstream MCP source that connects with OAuth on this gateway.`,
  );
}
