import { AuthRequiredError } from '@gateway/sdk';
import { describe, expect, it } from 'vitest';
import { loginAtProvider } from '#test/auth/oidc-provider-server.js';
import {
  cloudPlugin,
  type OidcWorld,
  revokeAndExpire,
  startOidcWorld,
  webBrowser,
} from '#test/auth/oidc-world.js';
import type { ToolStatus } from '../tool-status/index.js';

// Issue 15: after the provider refuses a refresh (invalid_grant), the account is shown as needing
// a reconnect everywhere the user looks, and reconnecting from the Tools tab clears it. All over
// HTTP against a listening gateway and oidc-provider.

/** Follows a redirect into the provider, logs in there, and comes back to the gateway page. */
async function throughProvider(session: ReturnType<typeof webBrowser>, started: Response) {
  expect(started.status).toBe(303);
  const callback = await loginAtProvider(started.headers.get('location') ?? '');
  const answered = await session.browse(callback.toString());
  const { url } = await session.follow(answered, (next) => next.pathname === '/tools');
  return url;
}

async function signedInWithGcp(world: OidcWorld) {
  const session = webBrowser(world);
  const landed = await throughProvider(
    session,
    await session.browse('/sign-in/social', { form: { provider: 'gcp', next: '/tools' } }),
  );
  expect(landed?.pathname).toBe('/tools');
  const me = (await (await session.browse('/api/me')).json()) as { userId: string };
  return { session, userId: me.userId };
}

const callTool = (world: OidcWorld, userId: string) =>
  world.gw.services.tokens.resolverFor(userId, cloudPlugin()).getToken('cloud');

describe('a refused refresh, then Reconnect (issue 15)', () => {
  it('shows Reconnect in the status API, /api/me and the Tools tab, and reconnecting clears it', async () => {
    const world = await startOidcWorld();
    const { session, userId } = await signedInWithGcp(world);
    const status = async () => {
      const res = await session.browse(`/api/tools/status?userId=${userId}`);
      expect(res.status).toBe(200);
      const body = (await res.json()) as ToolStatus;
      return body.plugins.find((plugin) => plugin.id === 'cloud')?.providers[0];
    };
    expect(await status()).toMatchObject({
      state: 'you',
      source: 'oauth',
      oauth: { configured: true, linked: true, needsReconnect: false },
    });

    await revokeAndExpire(world, userId);
    const failure = await callTool(world, userId).catch((error: unknown) => error);
    expect(AuthRequiredError.isInstance(failure)).toBe(true);
    const message = (failure as Error).message;
    // The tool's words name what the Tools tab offers and the command the CLI accepts.
    expect(message).toContain(`Reconnect it in the Tools tab of ${world.url}`);
    expect(message).toContain('`gateway connect gcp`');

    expect(await status()).toMatchObject({
      state: 'reconnect',
      source: null,
      oauth: { configured: true, linked: true, needsReconnect: true },
    });
    const me = (await (await session.browse('/api/me')).json()) as {
      linkedAccounts: { providerId: string; needsReconnect: boolean }[];
    };
    expect(me.linkedAccounts).toEqual([
      expect.objectContaining({ providerId: 'gcp', needsReconnect: true }),
    ]);
    const page = await (await session.browse('/tools')).text();
    expect(page).toContain('data-state="reconnect"');
    expect(page).toContain('>Needs reconnecting</span>');
    expect(page).toContain('Google Cloud refused to renew your sign-in');
    expect(page).toContain('<button type="submit">Reconnect Google Cloud</button>');
    // The state pills, not the Tools filter's options of the same words.
    expect(page).not.toContain('>Connected by you</span>');

    const refreshesBefore = world.idp.grants('refresh_token');
    const landed = await throughProvider(
      session,
      await session.browse('/tools/oauth/gcp/connect', { method: 'POST', form: {} }),
    );
    expect(landed?.searchParams.get('connected')).toBe('gcp');
    expect(await status()).toMatchObject({
      state: 'you',
      source: 'oauth',
      oauth: { needsReconnect: false },
    });
    const after = await (await session.browse('/tools')).text();
    expect(after).not.toContain('>Needs reconnecting</span>');
    expect(after).toContain('>Connected by you</span>');
    await expect(callTool(world, userId)).resolves.toEqual(expect.any(String));
    expect(world.idp.grants('refresh_token')).toBe(refreshesBefore);
  });
});
