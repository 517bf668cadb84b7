import { findLinkedAccountId } from '../vending/linked-accounts.js';
import { escapeHtml, page } from './html.js';
import { type CliPages, errorPage, htmlResponse, signedInViewer } from './page-kit.js';

/** The page `gateway login` ends on once the CLI's listener has its code. */
export const AUTHORIZE_COMPLETE_PATH = '/cli/authorize/complete';

/** The page `gateway connect <provider>` ends on once the CLI's listener was told. */
export function connectCompletePath(providerId: string): string {
  return `/cli/connect/${encodeURIComponent(providerId)}/complete`;
}

const BACK_TO_TERMINAL = '<p class="muted">Go back to your terminal; you can close this tab.</p>';

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
    const who = signedIn === undefined ? '' : ` as <strong>${escapeHtml(signedIn.email)}</strong>`;
    const body = `<h1>Command line approved</h1>
<p class="notice ok" role="status">You approved the Gateway command line${who}. It finishes signing in on its own.</p>
${BACK_TO_TERMINAL}`;
    return htmlResponse(c, page('Command line approved', body));
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
    const name = escapeHtml(provider.name);
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
    if (linked === undefined) {
      const body = `<h1>${name} is not connected</h1>
<p class="notice error" role="alert">Your ${name} account is not linked to Gateway. Run <code>gateway connect ${escapeHtml(provider.id)}</code> again.</p>
${BACK_TO_TERMINAL}`;
      return htmlResponse(c, page(`${provider.name} not connected`, body));
    }
    const body = `<h1>${name} connected</h1>
<p class="notice ok" role="status">Your ${name} account is linked to Gateway as <strong>${escapeHtml(signedIn.email)}</strong>. Your tools can use it now, and the command line has been told.</p>
${BACK_TO_TERMINAL}
<p><a href="/tools">Open your tools</a></p>`;
    return htmlResponse(c, page(`${provider.name} connected`, body));
  });
}
