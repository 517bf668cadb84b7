import type { Fetch } from '../../api/gateway-api.js';
import { revokeCliToken } from '../../api/revoke-cli-token.js';
import { CredentialStore } from '../../credentials/credential-store.js';
import type { Keychain } from '../../credentials/keychain.js';
import { resolveServerUrl } from '../../credentials/session.js';
import { createColors } from '../../output/color.js';
import type { Io } from '../../output/io.js';
import { formatMoment } from '../../output/moment.js';

/** Options of `runLogout()`. */
export interface LogoutOptions {
  io: Io;
  /** The gateway to sign out of. Default: `GATEWAY_URL`, else the last one signed in to. */
  url?: string | undefined;
  fetch?: Fetch | undefined;
  /** The OS keychain; `null` where none answers. Default: the real one. */
  keychain?: Keychain | null | undefined;
}

/** What `gateway logout` did. */
export interface LogoutResult {
  url: string;
  /** A stored credential was forgotten. */
  signedOut: boolean;
  /** The gateway confirmed the token is revoked. */
  revoked: boolean;
  /** The gateway said the token had expired already (so nothing was left to revoke): when. */
  expiredAt?: string;
}

/**
 * `gateway logout`: revokes the stored CLI token at the gateway (`DELETE /api/cli/tokens/:id`)
 * when it answers, then forgets the credential in the keychain and the credentials file. Not
 * being signed in is no error. `GATEWAY_TOKEN` lives in the environment, so it is left alone,
 * with a warning.
 */
export async function runLogout(options: LogoutOptions): Promise<LogoutResult> {
  const { io } = options;
  const c = createColors(io);
  const base = await resolveServerUrl(io, options.url);
  const store = new CredentialStore({ env: io.env, keychain: options.keychain });
  const stored = await store.load(base);
  let revoked = false;
  let expiredAt: string | undefined;
  if (stored === undefined) {
    io.stderr.write(`Not signed in to ${base}; nothing to do.\n`);
  } else {
    const { token, tokenId } = stored.credential;
    const outcome = await revokeCliToken(base, token, tokenId, options.fetch);
    revoked = outcome.kind === 'revoked';
    if (outcome.kind === 'expired') expiredAt = outcome.expiredAt;
    await store.forget(base);
    const detail =
      outcome.kind === 'revoked'
        ? '; the token is revoked'
        : outcome.kind === 'expired'
          ? `; the token had expired on ${formatMoment(outcome.expiredAt)}`
          : '';
    io.stdout.write(`${c.green('✓')} Signed out of ${base}${detail}\n`);
    if (outcome.kind === 'unconfirmed') {
      io.stderr.write(
        `${c.yellow('warning:')} the gateway did not confirm the token is revoked (unreachable, or revoked already); it is forgotten here, and you can revoke it in the web app\n`,
      );
    }
  }
  if (io.env.GATEWAY_TOKEN?.trim()) {
    io.stderr.write(
      `${c.yellow('warning:')} GATEWAY_TOKEN is still set in the environment; unset it to sign out completely\n`,
    );
  }
  return {
    url: base,
    signedOut: stored !== undefined,
    revoked,
    ...(expiredAt === undefined ? {} : { expiredAt }),
  };
}
