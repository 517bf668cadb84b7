import { z } from 'zod';
import { hiddenFields, html } from '../web/html.js';
import { standalonePage } from '../web/standalone-page.js';
import { issueCode } from './codes.js';
import { AUTHORIZE_COMPLETE_PATH } from './complete-page.js';
import { loopbackRedirect, loopbackRequest, withParams } from './loopback.js';
import {
  type CliPages,
  csrfToken,
  errorPage,
  formIsGenuine,
  readForm,
  seeOther,
  signedInViewer,
  signInLocation,
} from './page-kit.js';
import { isS256Challenge } from './pkce.js';

/** The query of `/cli/authorize` (and the fields of its form). */
const authorizeRequest = loopbackRequest.extend({
  code_challenge: z.string().refine(isS256Challenge, 'not an S256 code challenge'),
  code_challenge_method: z.literal('S256'),
  client_name: z.string().trim().min(1).max(100).optional(),
  response_type: z.literal('code').optional(),
});
type AuthorizeRequest = z.infer<typeof authorizeRequest>;

function parseRequest(
  input: Record<string, string | undefined>,
): { ok: true; request: AuthorizeRequest; redirect: URL } | { ok: false; message: string } {
  const parsed = authorizeRequest.safeParse(input);
  if (!parsed.success) {
    const fields = [...new Set(parsed.error.issues.map((issue) => issue.path.join('.')))].join(
      ', ',
    );
    return { ok: false, message: `The sign-in request is malformed (${fields}).` };
  }
  const redirect = loopbackRedirect(parsed.data.redirect_uri);
  if (!redirect) {
    return {
      ok: false,
      message:
        'redirect_uri must be http://127.0.0.1:<port>/callback or http://localhost:<port>/callback.',
    };
  }
  return { ok: true, request: parsed.data, redirect };
}

/**
 * `GET /cli/authorize`: the browser half of `gateway login` (RFC 8252 loopback redirect with
 * PKCE S256). A signed-in user sees which client asks and approves or denies; approval redirects
 * to the loopback `redirect_uri` with a one-time code bound to `state` and the code challenge,
 * which the CLI exchanges at `POST /api/cli/token`, and `complete_uri`, the gateway page the
 * CLI's listener sends the browser on to. A browser that is not signed in goes to the
 * sign-in page first. A malformed request or a non-loopback redirect is refused on the page,
 * never redirected.
 */
export function mountAuthorizePage(pages: CliPages): void {
  const { app, services } = pages;

  app.get('/cli/authorize', async (c) => {
    const parsed = parseRequest(c.req.query());
    if (!parsed.ok) return errorPage(c, 400, 'Sign-in request refused', parsed.message);
    const signedIn = await signedInViewer(pages, c);
    if (!signedIn) return c.redirect(signInLocation(c), 302);
    const { request, redirect } = parsed;
    const client = request.client_name ?? 'Gateway CLI';
    const fields = hiddenFields({
      redirect_uri: request.redirect_uri,
      state: request.state,
      code_challenge: request.code_challenge,
      code_challenge_method: request.code_challenge_method,
      client_name: client,
      csrf: csrfToken(c, services),
    });
    const body = html`<h1>Allow ${client}?</h1>
<p><strong>${client}</strong> on this computer (listening on port ${redirect.port}) wants to use Gateway as <strong>${signedIn.email}</strong>.</p>
<p class="muted">It receives a token that can do what you can do in Gateway until you revoke it. Only approve if you just ran <code>gateway login</code>.</p>
<form method="post" action="/cli/authorize">
${fields}
<button type="submit" name="action" value="approve">Approve</button>
<button type="submit" name="action" value="deny">Deny</button>
</form>`;
    return standalonePage(c, `Allow ${client}`, body);
  });

  app.post('/cli/authorize', async (c) => {
    const form = await readForm(c);
    const parsed = parseRequest(form);
    if (!parsed.ok) return errorPage(c, 400, 'Sign-in request refused', parsed.message);
    if (!formIsGenuine(c, form)) {
      return errorPage(
        c,
        403,
        'Request refused',
        'This form was not sent from the Gateway approval page.',
      );
    }
    const signedIn = await signedInViewer(pages, c);
    if (!signedIn)
      return errorPage(c, 401, 'Not signed in', 'Your session ended; run `gateway login` again.');
    const { request, redirect } = parsed;
    if (form.action !== 'approve') {
      return seeOther(c, withParams(redirect, { error: 'access_denied', state: request.state }));
    }
    const code = await issueCode(services.database.db, {
      userId: signedIn.id,
      redirectUri: request.redirect_uri,
      state: request.state,
      codeChallenge: request.code_challenge,
      clientName: request.client_name ?? 'Gateway CLI',
    });
    return seeOther(
      c,
      withParams(redirect, {
        code,
        state: request.state,
        // The CLI's listener sends the browser on to this gateway page once it has the code.
        complete_uri: `${services.baseUrl}${AUTHORIZE_COMPLETE_PATH}`,
      }),
    );
  });
}
