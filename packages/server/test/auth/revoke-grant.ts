import { decryptOAuthToken } from 'better-auth/oauth2';
import type { ServedGateway } from '../../src/gateway.js';
import type { OidcProviderServer } from './oidc-provider-server.js';

/**
 * Test support: revokes, at `idp`, the refresh token the gateway holds for `userId`'s account
 * with provider `providerId` (as a user removing the app's access at their IdP does), and expires
 * the stored access token, so the next use of the account refreshes and is refused.
 */
export async function revokeLinkedGrant(
  gateway: ServedGateway,
  idp: OidcProviderServer,
  userId: string,
  providerId: string,
): Promise<void> {
  const { db } = gateway.services.database;
  const row = await db
    .selectFrom('account')
    .select(['id', 'refreshToken'])
    .where('userId', '=', userId)
    .where('providerId', '=', providerId)
    .executeTakeFirstOrThrow();
  const ctx = await (await gateway.services.auth.instance()).$context;
  const revoked = await fetch(`${idp.issuer}/token/revocation`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${idp.clientId}:${idp.clientSecret}`).toString('base64')}`,
    },
    body: new URLSearchParams({ token: await decryptOAuthToken(row.refreshToken ?? '', ctx) }),
  });
  if (revoked.status !== 200) throw new Error(`revocation answered ${revoked.status}`);
  await db
    .updateTable('account')
    .set({ accessTokenExpiresAt: new Date(Date.now() - 1000) })
    .where('id', '=', row.id)
    .execute();
}
