import { describe, expect, it } from 'vitest';
import { forecastPlugin, json, notesPlugin, repoPlugin } from '#test/registry/test-plugins.js';
import { createTestGateway } from '#test/support/test-gateway.js';
import { OAUTH_PROVIDERS, oauthCallbackUrl } from './providers.js';

interface Connector {
  id: string;
  name: string;
  kind: string;
  configured: boolean;
  callbackUrl?: string;
}

describe('GET /api/connectors/availability', () => {
  it('lists the 8 shipped OAuth providers, then API-key providers of loaded plugins', async () => {
    const gw = await createTestGateway({
      plugins: [notesPlugin(), forecastPlugin(), repoPlugin()],
      authBaseUrl: 'https://auth.example.test/',
      env: {
        GITHUB_CLIENT_ID: 'id',
        GITHUB_CLIENT_SECRET: 'secret',
        GOOGLE_CLIENT_ID: 'only-the-id',
        GCP_CLIENT_ID: 'id',
        GCP_CLIENT_SECRET: 'secret',
        FORECAST_API_KEY: 'fc-key-1234567890',
      },
    });
    const user = await gw.createUser();
    const res = await gw.request('GET', '/api/connectors/availability', { as: user });
    expect(res.status).toBe(200);
    const text = await res.text();
    // The key is configured, never revealed.
    expect(text).not.toContain('fc-key-1234567890');
    const { connectors } = JSON.parse(text) as { connectors: Connector[] };
    expect(connectors).toEqual([
      {
        id: 'github',
        name: 'GitHub',
        kind: 'social',
        configured: true,
        callbackUrl: 'https://auth.example.test/api/auth/callback/github',
      },
      {
        id: 'google',
        name: 'Google',
        kind: 'social',
        configured: false,
        callbackUrl: 'https://auth.example.test/api/auth/callback/google',
      },
      {
        id: 'microsoft',
        name: 'Microsoft',
        kind: 'social',
        configured: false,
        callbackUrl: 'https://auth.example.test/api/auth/callback/microsoft',
      },
      {
        id: 'discord',
        name: 'Discord',
        kind: 'social',
        configured: false,
        callbackUrl: 'https://auth.example.test/api/auth/callback/discord',
      },
      {
        id: 'gcp',
        name: 'Google Cloud',
        kind: 'generic',
        configured: true,
        callbackUrl: 'https://auth.example.test/api/auth/oauth2/callback/gcp',
      },
      {
        id: 'atlassian',
        name: 'Atlassian',
        kind: 'generic',
        configured: false,
        callbackUrl: 'https://auth.example.test/api/auth/oauth2/callback/atlassian',
      },
      {
        id: 'slack',
        name: 'Slack',
        kind: 'generic',
        configured: false,
        callbackUrl: 'https://auth.example.test/api/auth/oauth2/callback/slack',
      },
      {
        id: 'linear',
        name: 'Linear',
        kind: 'generic',
        configured: false,
        callbackUrl: 'https://auth.example.test/api/auth/oauth2/callback/linear',
      },
      { id: 'forecast', name: 'Forecast', kind: 'api_key', configured: true },
    ]);
  });

  it('reports an API-key provider unconfigured without its key, once however many plugins share it', async () => {
    const gw = await createTestGateway({ plugins: [forecastPlugin()] });
    const res = await gw.request('GET', '/api/connectors/availability', { as: 'service' });
    const { connectors } = await json<{ connectors: Connector[] }>(res);
    expect(connectors.filter((connector) => connector.kind === 'api_key')).toEqual([
      { id: 'forecast', name: 'Forecast', kind: 'api_key', configured: false },
    ]);
    expect(
      connectors.every((connector) => connector.kind === 'api_key' || !connector.configured),
    ).toBe(true);
  });

  it('needs a signed-in caller (401)', async () => {
    const gw = await createTestGateway();
    const res = await gw.request('GET', '/api/connectors/availability');
    expect(res.status).toBe(401);
  });
});

describe('OAuth provider catalogue', () => {
  it('ships four social and four generic providers', () => {
    expect(OAUTH_PROVIDERS.filter((p) => p.kind === 'social').map((p) => p.id)).toEqual([
      'github',
      'google',
      'microsoft',
      'discord',
    ]);
    expect(OAUTH_PROVIDERS.filter((p) => p.kind === 'generic').map((p) => p.id)).toEqual([
      'gcp',
      'atlassian',
      'slack',
      'linear',
    ]);
  });

  it('builds callback URLs under the auth base URL', () => {
    expect(oauthCallbackUrl('https://gw.example.test//', { id: 'slack', kind: 'generic' })).toBe(
      'https://gw.example.test/api/auth/oauth2/callback/slack',
    );
  });
});
