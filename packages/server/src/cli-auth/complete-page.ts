import { findLinkedAccountId } from '../vending/linked-accounts.js';
import { html } from '../web/html.js';
import { standalonePage } from '../web/standalone-page.js';
import { connectCompletePage } from './browser-connect.js';
import { type CliPages, errorPage, signedInViewer } from './page-kit.js';

/** The page `gateway login` ends on once the CLI's listener has its code. */
export const AUTHORIZE_COMPLETE_PATH = '/cli/authorize/complete';

/** The page `gateway connect <provider>` ends on once the CLI's listener was told. */
export function connectCompletePath(providerId: string): string {
  return `/cli/connect/${encodeURIComponent(providerId)}/complete`;
}

/**
 * The last pages of the CLI's browser flows, in the web app's look. The browser gets here from
 * the CLI's loopback listener, which answers the gateway's redirect and then sends the browser on
 * to the `complete_uri` the gateway gave it: so the flow ends on a gateway page rather than on
 * the listener's bare one. These pages decide nothing; the connect page reads whether the
 * account is linked from the database rather than trusting its URL.
 */
export function mountCompletePages(pages: CliPages): void {
  const { app, services } = pages;
  app.get(AUTHORIZE_COMPLETE_PATH, async (c) => {
    const signedIn = await signedInViewer(pages, c);
    const who = signedIn === undefined ? '' : html` as <strong>${signedIn.email}</strong>`;
    const body = html`<h1>Command line approved</h1>
<p class="notice ok" role="status">You approved the Gateway command line${who}. It finishes signing in on its own.</p>
<p class="muted">Go back to your terminal; you can close this tab.</p>`;
    return standalonePage(c, 'Command line approved', body);
  });

  app.get('/cli/connect/:provider/complete', async (c) => {
    const provider = services.auth.providers.find(
      (candidate) => candidate.id === c.req.param('provider'),
    );
    if (provider === undefined) {
      return errorPage(
        c,
        404,
        'Provider not available',
        `"${c.req.param('provider')}" is not an OAuth provider this gateway has configured.`,
      );
    }
    const signedIn = await signedInViewer(pages, c);
    if (signedIn === undefined) {
      return errorPage(
        c,
        401,
        'Not signed in',
        `Sign in to Gateway to see whether ${provider.name} is connected.`,
      );
    }
    const linked = await findLinkedAccountId(services.database.db, signedIn.id, provider.id);
    return connectCompletePage(c, provider.name, {
      connected: linked !== undefined,
      message:
        linked === undefined
          ? html`Your ${provider.name} account is not linked to Gateway. Run <code>gateway connect ${provider.id}</code> again.`
          : html`Your ${provider.name} account is linked to Gateway as <strong>${signedIn.email}</strong>. Your tools can use it now, and the command line has been told.`,
    });
  });
}
