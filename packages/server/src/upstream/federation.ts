import { AuthRequiredError } from '@gateway/sdk';
import type { TokenVendor } from '../vending/index.js';
import { howToConnect } from '../vending/token-vendor.js';
import type { Live } from './live-source.js';
import type { UpstreamOAuthHooks } from './oauth-hooks.js';
import type { Offers } from './offers.js';
import { providersOf } from './upstream-tool.js';

/** An upstream source as resources, prompts and completions are federated from it. */
export interface FederatedSource {
  id: string;
  namespace: string;
  offers: Offers;
}

/** What finding a caller's credential for a source takes. */
export interface FederationCredentials {
  tokens: Pick<TokenVendor, 'getToken'>;
  oauth?: UpstreamOAuthHooks | undefined;
  baseUrl?: () => string;
}

/**
 * The credential `subject` (a user, or a service account) sends to source `id` outside a tool
 * call: the one its tool calls send, found the same way (`UpstreamTool`). A `header` source's is
 * the one vended for its provider (own connection, team connection, server key); an `oauth`
 * source's the caller's own token; none for a stdio source or `auth: none`.
 *
 * @throws AuthRequiredError when the caller has none, saying how to connect one.
 */
export async function federatedCredential(
  options: FederationCredentials,
  id: string,
  live: Pick<Live, 'target'>,
  subject: string,
): Promise<{ credential: string | undefined; provider: string | undefined }> {
  const { target } = live;
  if (target.kind !== 'http' || target.auth.kind === 'none') {
    return { credential: undefined, provider: undefined };
  }
  const { auth } = target;
  if (auth.kind === 'header') {
    const credential = await options.tokens.getToken(subject, auth.provider, {
      authProvider: providersOf(auth, id)[0],
    });
    return { credential, provider: auth.provider };
  }
  const found =
    options.oauth === undefined
      ? ({ ok: false, reason: 'none' } as const)
      : await options.oauth.accessToken(subject, id);
  if (!found.ok) {
    const baseUrl = options.baseUrl?.() ?? 'the gateway';
    throw new AuthRequiredError(
      id,
      `No working connection of yours to the upstream MCP server of source "${id}". ${howToConnect(baseUrl, id)}`,
    );
  }
  return { credential: found.token, provider: id };
}
