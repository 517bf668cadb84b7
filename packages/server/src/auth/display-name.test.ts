import { describe, expect, it } from 'vitest';
import { browser } from '#test/auth/oauth-test-kit.js';
import { startOidcProvider } from '#test/auth/oidc-provider-server.js';
import { createTestGateway } from '#test/support/test-gateway.js';

// Issue 39: a generic slot pointed at any IdP kept its product name ("Google Cloud") on the
// sign-in button and in messages. `<P>_DISPLAY_NAME` names it.

const ORIGIN = 'http://127.0.0.1:8787';
const CALLBACK = `${ORIGIN}/api/auth/oauth2/callback/gcp`;

describe('<P>_DISPLAY_NAME of a generic slot (issue 39)', () => {
  it('names the sign-in button and the connectors list', async () => {
    const idp = await startOidcProvider({ redirectUri: CALLBACK });
    const gw = await createTestGateway({
      env: {
        GCP_CLIENT_ID: idp.clientId,
        GCP_CLIENT_SECRET: idp.clientSecret,
        GCP_ISSUER_URL: idp.issuer,
        GCP_DISPLAY_NAME: 'Corp <SSO>',
      },
    });
    const session = browser(gw.fetch, ORIGIN);
    const page = await (await session.browse('/sign-in')).text();
    expect(page).toContain('Continue with Corp &lt;SSO&gt;');
    expect(page).not.toContain('Google Cloud');

    const user = await gw.createUser();
    const listed = await gw.request('GET', '/api/connectors/availability', { as: user });
    const { connectors } = (await listed.json()) as { connectors: { id: string; name: string }[] };
    expect(connectors.find((connector) => connector.id === 'gcp')?.name).toBe('Corp <SSO>');
  });

  it('leaves social providers and unset slots with their own names', async () => {
    const idp = await startOidcProvider({ redirectUri: CALLBACK });
    const gw = await createTestGateway({
      env: {
        GCP_CLIENT_ID: idp.clientId,
        GCP_CLIENT_SECRET: idp.clientSecret,
        GCP_ISSUER_URL: idp.issuer,
        GITHUB_CLIENT_ID: 'gh-client',
        GITHUB_CLIENT_SECRET: 'gh-secret-0123456789',
        GITHUB_DISPLAY_NAME: 'Not GitHub',
      },
    });
    const page = await (await browser(gw.fetch, ORIGIN).browse('/sign-in')).text();
    expect(page).toContain('Continue with Google Cloud');
    expect(page).toContain('Continue with GitHub');
    expect(page).not.toContain('Not GitHub');
  });

  it('stops the start for a name with control characters or past 60 characters', async () => {
    for (const bad of ['Corp\nSSO', 'x'.repeat(61)]) {
      await expect(
        createTestGateway({
          env: { GCP_CLIENT_ID: 'id', GCP_CLIENT_SECRET: 'secret', GCP_DISPLAY_NAME: bad },
        }),
      ).rejects.toThrow(
        'GCP_DISPLAY_NAME must be at most 60 characters, without control characters',
      );
    }
  });
});
