import type { AppContext } from '../http/app-env.js';
import {
  answerCli,
  type BrowserConnect,
  type ConnectTarget,
  mountBrowserConnect,
  startProviderLink,
} from './browser-connect.js';
import { finishConnectFlow, startConnectFlow } from './codes.js';
import { connectCompletePath } from './complete-page.js';
import { loopbackRedirect } from './loopback.js';
import { type CliPages, errorPage, signedInViewer } from './page-kit.js';

/** The path of the CLI's browser page for connecting OAuth provider `providerId`. */
function connectPath(providerId: string): string {
  return `/cli/connect/${encodeURIComponent(providerId)}`;
}

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
  mountBrowserConnect(pages, providerConnect(services));

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
    const answer = { state: flow.state, provider: flow.provider };
    if (signedIn?.id !== flow.userId) return answerCli(c, redirect, answer, 'session_changed');
    const error = c.req.query('error');
    if (error !== undefined) return answerCli(c, redirect, answer, error);
    const completeUri = `${services.baseUrl}${connectCompletePath(flow.provider)}`;
    return answerCli(c, redirect, answer, { completeUri });
  });
}

/** Connecting an OAuth sign-in provider: better-auth's link flow, which ends at the `done` page. */
function providerConnect(services: CliPages['services']): BrowserConnect {
  return {
    route: '/cli/connect/:provider',
    path: connectPath,
    async target(c): Promise<ConnectTarget | undefined> {
      const provider = services.auth.providers.find(
        (candidate) => candidate.id === c.req.param('provider'),
      );
      if (provider === undefined) return undefined;
      return {
        id: provider.id,
        name: provider.name,
        account: `your ${provider.name} account`,
        purpose: 'so your tools can use it',
        signInAt: provider.name,
        continueLabel: `Continue to ${provider.name}`,
      };
    },
    unknown: (c: AppContext) =>
      errorPage(
        c,
        404,
        'Provider not available',
        `"${c.req.param('provider')}" is not an OAuth provider this gateway has configured. API-key tools are connected with \`gateway connect\` prompting for the key.`,
      ),
    async start(c, target, viewer, request) {
      const flow = await startConnectFlow(services.database.db, {
        userId: viewer.id,
        redirectUri: request.redirect_uri,
        state: request.state,
        provider: target.id,
      });
      const done = `${services.baseUrl}${connectPath(target.id)}/done?flow=${flow}`;
      const started = await startProviderLink(c, services, target.id, {
        callbackURL: done,
        errorCallbackURL: done,
      });
      if ('error' in started) await finishConnectFlow(services.database.db, flow);
      return started;
    },
  };
}
