import { definePlugin, defineTool, type Plugin } from '@gateway/sdk';
import { decryptOAuthToken } from 'better-auth/oauth2';
import { z } from 'zod';
import { freePort } from '../support/free-port.js';
import { createTestGateway, type TestGateway } from '../support/test-gateway.js';
import { browser } from './oauth-test-kit.js';
import { type OidcProviderServer, startOidcProvider } from './oidc-provider-server.js';

/**
 * Test support: `oidc-provider` as the generic provider `gcp` (through discovery) in front of a
 * test gateway that listens on 127.0.0.1, for tests that go over real HTTP (a browser, fetch).
 * Both stop when the test ends.
 */
export interface OidcWorld {
  idp: OidcProviderServer;
  gw: TestGateway;
  /** The gateway's base URL, e.g. `http://127.0.0.1:41234`. */
  url: string;
}

/**
 * A plugin whose tool `cloud.projects.list` needs the user's `gcp` account (its own provider id
 * is `cloud`, as a plugin names it) and answers with the token's last four characters.
 */
export function cloudPlugin(): Plugin {
  return definePlugin({
    id: 'cloud',
    name: 'Cloud',
    description: 'Lists cloud projects.',
    authProviders: [{ id: 'cloud', type: 'oauth2', provider: 'gcp', scopes: [] }],
    tools: [
      defineTool({
        path: 'cloud.projects.list',
        name: 'List Projects',
        description: 'Lists the projects the account sees.',
        inputSchema: z.object({}),
        authProvider: 'cloud',
        async handler(ctx) {
          const token = await ctx.auth.getToken('cloud');
          return { tail: token.slice(-4) };
        },
      }),
    ],
  });
}

/** A port free now, for a server whose URL must be known before it starts. */

/**
 * Starts the provider (its client's redirect URI must name the gateway's port, so that port is
 * chosen first) and the gateway with {@link cloudPlugin} mounted, `gcp` configured through
 * `GCP_ISSUER_URL`.
 *
 * @example
 * const { idp, gw, url } = await startOidcWorld();
 */
export async function startOidcWorld(
  options: { discoveryDown?: boolean } = {},
): Promise<OidcWorld> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const idp = await startOidcProvider({ redirectUri: `${url}/api/auth/oauth2/callback/gcp` });
  idp.discoveryDown = options.discoveryDown ?? false;
  const gw = await createTestGateway({
    host: '127.0.0.1',
    port,
    baseUrl: url,
    plugins: [cloudPlugin()],
    env: {
      GCP_CLIENT_ID: idp.clientId,
      GCP_CLIENT_SECRET: idp.clientSecret,
      GCP_ISSUER_URL: idp.issuer,
    },
  });
  gw.services.plugins.mount({ id: 'cloud', namespace: 'cloud', pluginId: 'cloud' });
  await gw.start();
  return { idp, gw, url };
}

/**
 * Revokes the user's `gcp` refresh token at the provider and makes the access token due, so the
 * next call that needs it sends a refresh the provider refuses (`invalid_grant`).
 */
export async function revokeAndExpire(world: OidcWorld, userId: string): Promise<void> {
  const { db } = world.gw.services.database;
  const row = await db
    .selectFrom('account')
    .select(['refreshToken'])
    .where('providerId', '=', 'gcp')
    .where('userId', '=', userId)
    .executeTakeFirstOrThrow();
  const ctx = await (await world.gw.services.auth.instance()).$context;
  const revoked = await fetch(`${world.idp.issuer}/token/revocation`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${world.idp.clientId}:${world.idp.clientSecret}`).toString('base64')}`,
    },
    body: new URLSearchParams({ token: await decryptOAuthToken(row.refreshToken ?? '', ctx) }),
  });
  if (revoked.status !== 200) throw new Error(`revocation answered ${revoked.status}`);
  await db
    .updateTable('account')
    .set({ accessTokenExpiresAt: new Date(Date.now() - 1000) })
    .where('providerId', '=', 'gcp')
    .where('userId', '=', userId)
    .execute();
}

/** A browser on the real network: the world's gateway over HTTP, with a cookie jar. */
export function webBrowser(world: OidcWorld) {
  return browser((request) => fetch(request, { redirect: 'manual' }), world.url);
}
