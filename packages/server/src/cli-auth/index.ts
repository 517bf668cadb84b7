import type { Hono } from 'hono';
import type { AppEnv } from '../http/app-env.js';
import { mountLazily } from '../http/lazy-routes.js';
import type { Authenticate } from '../identity/index.js';
import type { SignupPolicy } from '../invites/policy.js';
import type { CliPagesDeps } from './page-kit.js';
import { CLI_PAGE_ROUTES } from './page-routes.js';

/**
 * Mounts the browser pages of the CLI flows: `/cli/authorize` (`gateway login`),
 * `/cli/connect/<provider>` (`gateway connect`), `/cli/sign-in` (for a browser not signed in) and
 * the pages both flows end on (`/cli/authorize/complete`, `/cli/connect/<provider>/complete`).
 * Their modules load with the first request to one of them (`mountLazily`).
 *
 * @example
 * mountCliPages(app, services, authenticate);
 */
export function mountCliPages(
  app: Hono<AppEnv>,
  services: CliPagesDeps & { signup: SignupPolicy },
  authenticate: Authenticate,
): void {
  mountLazily(app, CLI_PAGE_ROUTES, async () => {
    const { mountCliPagesNow } = await import('./pages.js');
    return (recorder) => mountCliPagesNow(recorder, services, authenticate);
  });
}

export {
  type CliTokenLifetime,
  issueCliToken,
  listCliTokens,
  revokeCliToken,
} from '../identity/cli-token-store.js';
export { CODE_TTL_MS, type CodeGrant, type ConnectFlow, issueCode, redeemCode } from './codes.js';
export { loopbackRedirect } from './loopback.js';
export { s256, verifyPkce } from './pkce.js';
export {
  CLI_TOKEN_EXPIRED,
  checkCliTokenDays,
  cliTokenExpired,
  cliTokenExpiry,
  formatExpiry,
} from './token-expiry.js';
