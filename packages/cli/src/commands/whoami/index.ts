import { GatewayRefusal } from '../../api/api-error.js';
import type { Fetch } from '../../api/gateway-api.js';
import { GatewayApi } from '../../api/gateway-api.js';
import { cliTokenList } from '../../api/schemas.js';
import type { CredentialSource } from '../../credentials/credential-store.js';
import type { Keychain } from '../../credentials/keychain.js';
import { requireSession } from '../../credentials/session.js';
import type { Io } from '../../output/io.js';
import { maskToken } from '../../output/mask.js';

/** Options of `runWhoami()`. */
export interface WhoamiOptions {
  io: Io;
  /** The gateway. Default: `GATEWAY_URL`, else the last one signed in to. */
  url?: string | undefined;
  json?: boolean | undefined;
  fetch?: Fetch | undefined;
  /** The OS keychain; `null` where none answers. Default: the real one. */
  keychain?: Keychain | null | undefined;
}

/** Who the CLI acts as, and where the credential is. */
export interface WhoamiResult {
  url: string;
  /** Null for a `GATEWAY_TOKEN` without `GATEWAY_USER_ID`. */
  userId: string | null;
  /** `keychain`, `file` or `env` (`GATEWAY_TOKEN`). */
  store: CredentialSource;
  /** The credentials file, when `store` is `file`. */
  file?: string;
  /** The token, masked. */
  token: string;
}

const STORE_NAMES: Record<CredentialSource, string> = {
  keychain: 'the OS keychain',
  file: 'the credentials file',
  env: 'GATEWAY_TOKEN (environment)',
};

/**
 * `gateway whoami`: the signed-in user's id, the gateway, and which store holds the credential
 * (OS keychain, credentials file, or `GATEWAY_TOKEN`). Checks with the gateway that the token
 * still works.
 *
 * @throws CliError (exit 4) when not signed in or the gateway rejects the token.
 */
export async function runWhoami(options: WhoamiOptions): Promise<WhoamiResult> {
  const { io } = options;
  const session = await requireSession(options);
  // Any authenticated read proves the token; this one also works for every CLI token.
  const api = new GatewayApi(session, { fetch: options.fetch, io });
  try {
    await api.call({ method: 'GET', path: '/api/cli/tokens', schema: cliTokenList });
  } catch (error) {
    // 403: a token that is not a user's (a service account key in GATEWAY_TOKEN), yet valid.
    if (!(error instanceof GatewayRefusal && error.status === 403)) throw error;
  }
  const result: WhoamiResult = {
    url: session.url,
    userId: session.userId ?? null,
    store: session.source,
    ...(session.file === undefined ? {} : { file: session.file }),
    token: maskToken(session.token),
  };
  if (options.json) {
    io.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return result;
  }
  const where =
    session.file === undefined
      ? STORE_NAMES[session.source]
      : `${STORE_NAMES.file} ${session.file}`;
  io.stdout.write(
    `Signed in to ${session.url}\n` +
      `  user:  ${session.userId ?? 'unknown (set GATEWAY_USER_ID)'}\n` +
      `  token: ${result.token}, from ${where}\n`,
  );
  return result;
}
