import { describe, expect, it } from 'vitest';
import { loginAtProvider } from '#test/auth/oidc-provider-server.js';
import { type OidcWorld, startOidcWorld, webBrowser } from '#test/auth/oidc-world.js';

// Issue 15: a sign-in or connect that fails ends on the gateway's own page with a plain sentence
// and a way back, never on a 500 or better-auth's unbranded error page. Over real HTTP, against a
// listening gateway and oidc-provider as the generic provider `gcp`.

const UNREACHABLE = 'Google Cloud cannot be reached right now';
const REFUSED =
  'This sign-in was already used, took too long, or was started in another browser, so it was refused. Start again.';

type Session = ReturnType<typeof webBrowser>;

/** Starts a web sign-in with `gcp` and logs in at the provider: the callback, not yet sent. */
async function callbackOfSignIn(session: Session): Promise<URL> {
  const started = await session.browse('/sign-in/social', {
    form: { provider: 'gcp', next: '/tools' },
  });
  expect(started.status).toBe(303);
  return loginAtProvider(started.headers.get('location') ?? '');
}

/** Sends the callback and follows the gateway's redirects to the page they end on. */
async function landOn(session: Session, callback: URL) {
  const { response, url } = await session.follow(await session.browse(callback.toString()));
  return { status: response.status, url, page: await response.text() };
}

/** The gateway's own sign-in page: its password form, a way back in. */
const isSignInPage = (page: string) =>
  page.includes('<h1>Sign in to Gateway</h1>') && page.includes('action="/sign-in"');

async function signUp(world: OidcWorld): Promise<Session> {
  const session = webBrowser(world);
  const res = await session.browse('/sign-up', {
    form: { name: 'Ada', email: 'ada@example.test', password: 'correct horse battery' },
  });
  expect(res.status).toBe(303);
  return session;
}

describe('discovery down when a sign-in or connect starts', () => {
  it('answers the API with 503 service_unavailable and a plain message, never 500 internal', async () => {
    const world = await startOidcWorld({ discoveryDown: true });
    const res = await webBrowser(world).browse('/api/auth/sign-in/social', {
      body: { provider: 'gcp', callbackURL: '/tools', disableRedirect: true },
    });
    expect(res.status).toBe(503);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('service_unavailable');
    expect(body.error.message).toBe(
      'Google Cloud sign-in cannot be reached right now; try again shortly',
    );
  });

  it("puts the web sign-in back on the gateway's sign-in page, saying so", async () => {
    const world = await startOidcWorld({ discoveryDown: true });
    const session = webBrowser(world);
    const started = await session.browse('/sign-in/social', {
      form: { provider: 'gcp', next: '/tools' },
    });
    expect(started.status).toBe(303);
    expect(started.headers.get('location')).toBe('/sign-in');
    const page = await session.browse('/sign-in');
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain(UNREACHABLE);
    expect(isSignInPage(html)).toBe(true);
  });

  it('says so on the CLI sign-in page (503), with its forms to try again', async () => {
    const world = await startOidcWorld({ discoveryDown: true });
    const session = webBrowser(world);
    const next = '/cli/connect/gcp?redirect_uri=http://127.0.0.1:5000/callback&state=abcdefgh12';
    const form = await (
      await session.browse(`/cli/sign-in?next=${encodeURIComponent(next)}`)
    ).text();
    const csrf = /name="csrf" value="([^"]+)"/.exec(form)?.[1] ?? '';
    const res = await session.browse('/cli/sign-in/social', {
      form: { provider: 'gcp', next, csrf },
    });
    expect(res.status).toBe(503);
    const html = await res.text();
    expect(html).toContain(UNREACHABLE);
    expect(html).toContain('action="/cli/sign-in"');
  });

  it('puts a connect from the Tools tab back on the Tools tab, saying so', async () => {
    const world = await startOidcWorld({ discoveryDown: true });
    const session = await signUp(world);
    const started = await session.browse('/tools/oauth/gcp/connect', { method: 'POST', form: {} });
    expect(started.status).toBe(303);
    expect(started.headers.get('location')).toBe('/tools');
    const html = await (await session.browse('/tools')).text();
    expect(html).toContain(`${UNREACHABLE}, so connecting it cannot start`);
    expect(html).toContain('Connect Google Cloud</button>');
  });
});

describe('a state mismatch or a replayed callback', () => {
  it("lands a callback from another browser on the gateway's sign-in page", async () => {
    const world = await startOidcWorld();
    const callback = await callbackOfSignIn(webBrowser(world));
    const stranger = webBrowser(world);
    const landed = await landOn(stranger, callback);
    expect(landed.url?.origin).toBe(world.url);
    expect(landed.url?.pathname).toBe('/sign-in');
    expect(landed.status).toBe(200);
    expect(landed.page).toContain(REFUSED);
    expect(isSignInPage(landed.page)).toBe(true);
    expect(stranger.jar.has('better-auth.session_token')).toBe(false);
    expect(world.idp.grants('authorization_code')).toBe(0);
  });

  it('refuses a replayed callback: signed out on the sign-in page, signed in on the Tools tab', async () => {
    const world = await startOidcWorld();
    const session = webBrowser(world);
    const callback = await callbackOfSignIn(session);
    const first = await landOn(session, callback);
    expect(first.url?.pathname).toBe('/tools');
    expect(first.page).not.toContain(REFUSED);
    expect(world.idp.grants('authorization_code')).toBe(1);

    // The same browser, signed in by the first use: the refusal is worded where it works.
    const again = await landOn(session, callback);
    expect(again.url?.pathname).toBe('/tools');
    expect(again.url?.searchParams.get('error')).toBe('state_mismatch');
    expect(again.status).toBe(200);
    expect(again.page).toContain(REFUSED);

    // Someone else replaying it: the sign-in page, not signed in.
    const other = webBrowser(world);
    const replayed = await landOn(other, callback);
    expect(replayed.url?.pathname).toBe('/sign-in');
    expect(replayed.page).toContain(REFUSED);
    expect(other.jar.has('better-auth.session_token')).toBe(false);
    // Neither replay reached the provider with the code.
    expect(world.idp.grants('authorization_code')).toBe(1);
  });
});
