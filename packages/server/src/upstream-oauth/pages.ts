import {
  answerCli,
  type BrowserConnect,
  type ConnectStart,
  type ConnectTarget,
  connectCompletePage,
  mountBrowserConnect,
} from '../cli-auth/browser-connect.js';
import { loopbackRedirect } from '../cli-auth/loopback.js';
import { type CliPages, errorPage, seeOther, signedInViewer } from '../cli-auth/page-kit.js';
import { errorResponse, HttpError } from '../http/errors.js';
import { httpErrorOf } from '../http/route.js';
import { oauthToolId, PLUGIN_OAUTH_PREFIX } from '../upstream/oauth-hooks.js';
import { html } from '../web/html.js';
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
          const answer = { state: flow.returnTo.state, provider: flow.sourceId };
          const completeUri = `${services.baseUrl}${cliUpstreamConnectPath(flow.sourceId)}/complete`;
          return answerCli(c, redirect, answer, { completeUri });
        }
      }
      return seeOther(c, `/tools?connected=${encodeURIComponent(oauthToolId(flow.sourceId))}`);
    } catch (error) {
      if (!(error instanceof ConnectError)) throw error;
      const back = error.flow?.returnTo;
      if (back?.kind === 'cli') {
        const redirect = loopbackRedirect(back.redirectUri);
        if (redirect !== undefined) {
          const answer = { state: back.state, provider: error.flow?.sourceId ?? '' };
          return answerCli(c, redirect, answer, error.code);
        }
      }
      return errorPage(c, 400, 'Connect refused', error.message);
    }
  });

  mountBrowserConnect(pages, upstreamConnect(oauth));

  app.get(`${CLI_PAGE}/complete`, async (c) => {
    const sourceId = c.req.param('source') ?? '';
    const signedIn = await signedInViewer(pages, c);
    const connected =
      signedIn !== undefined && (await oauth.accessToken(signedIn.id, sourceId)).ok === true;
    return connectCompletePage(c, shownName(sourceId), {
      connected,
      message: connected
        ? html`Your account at ${describeSource(sourceId)} is connected to Gateway. Its tools run as you now, and the command line has been told.`
        : html`Run <code>gateway connect ${shownName(sourceId)}</code> again.`,
    });
  });
}

/** Connecting an upstream source: its OAuth flow, which ends at the upstream callback. */
function upstreamConnect(oauth: UpstreamOAuthService): BrowserConnect {
  return {
    route: CLI_PAGE,
    path: cliUpstreamConnectPath,
    async target(c): Promise<ConnectTarget | undefined> {
      const sourceId = c.req.param('source') ?? '';
      if (!(await oauth.isOAuthSource(sourceId))) return undefined;
      return {
        id: sourceId,
        name: shownName(sourceId),
        account: `your account at ${describeSource(sourceId)}`,
        purpose: 'so its tools run as you',
        signInAt: 'its authorization server',
        continueLabel: 'Continue',
      };
    },
    unknown: (c) => notAnOAuthSource(c, c.req.param('source') ?? ''),
    start: (_c, target, viewer, request) =>
      startUpstreamConnect(oauth, {
        userId: viewer.id,
        sourceId: target.id,
        returnTo: { kind: 'cli', redirectUri: request.redirect_uri, state: request.state },
      }),
  };
}

/**
 * Starts `userId`'s OAuth connect to upstream source `sourceId` (or a plugin's own provider): the
 * one start for `gateway connect` and the Tools tab alike. A refusal is `provider_unavailable`
 * when the authorization server cannot be reached, else `provider_refused`, with its message.
 *
 * @example
 * const started = await startUpstreamConnect(oauth, { userId, sourceId, returnTo: { kind: 'web' } });
 */
export async function startUpstreamConnect(
  oauth: UpstreamOAuthService,
  request: Parameters<UpstreamOAuthService['start']>[0],
): Promise<ConnectStart> {
  try {
    return { url: await oauth.start(request) };
  } catch (error) {
    const refused = httpErrorOf(error);
    if (refused === undefined) throw error;
    const unavailable = refused.code === 'service_unavailable';
    return {
      error: unavailable ? 'provider_unavailable' : 'provider_refused',
      message: refused.message,
    };
  }
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

function notAnOAuthSource(c: Parameters<typeof errorPage>[0], sourceId: string): Promise<Response> {
  return errorPage(
    c,
    404,
    'Source not available',
    sourceId.startsWith(PLUGIN_OAUTH_PREFIX)
      ? `"${shownName(sourceId)}" is not an OAuth provider of a loaded plugin whose client this gateway's admin has set up.`
      : `"${sourceId}" is not an upstream MCP source that connects with OAuth on this gateway.`,
  );
}
