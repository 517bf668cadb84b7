import { CliError } from '../cli-error.js';
import type { Io } from '../output/io.js';
import { type CredentialSource, CredentialStore } from './credential-store.js';
import type { Keychain } from './keychain.js';
import { DEFAULT_SERVER_URL, normalizeServerUrl } from './server-url.js';
import { readDefaultUrl } from './settings.js';

/** What every signed-in command takes to find its gateway and credential. */
export interface SessionOptions {
  io: Io;
  /** `--url`: beats `GATEWAY_URL`, which beats the gateway of the last `gateway login`. */
  url?: string | undefined;
  /** The OS keychain; `null` when none answers. Default: the real one. */
  keychain?: Keychain | null;
}

/** The gateway a command talks to, and as whom. */
export interface Session {
  url: string;
  token: string;
  /**
   * The user the commands act for. Undefined with a `GATEWAY_TOKEN` without `GATEWAY_USER_ID`:
   * `GatewayApi.userId()` then tries {@link storedUserId}, then asks the gateway.
   */
  userId: string | undefined;
  /**
   * With `GATEWAY_TOKEN`: the user of the sign-in `gateway login` stored with that same token, if
   * any. Read only when a command needs the user, so one that does not never opens the keychain.
   */
  storedUserId?: () => Promise<string | undefined>;
  /** The CLI token's id, when known (revoked at logout). */
  tokenId?: string | undefined;
  source: CredentialSource;
  /** The credentials file, when `source` is `file`. */
  file?: string | undefined;
}

/** The message of every "no credential" failure (exit code 4). */
export const NOT_SIGNED_IN = 'Not signed in. Run `gateway login`.';

/**
 * The gateway to talk to: `--url`, else `GATEWAY_URL`, else the one `gateway login` last signed
 * in to, else http://127.0.0.1:8787 (what `gateway dev` serves).
 *
 * @throws CliError (exit 2) when the chosen value is not an http(s) URL.
 */
export async function resolveServerUrl(io: Io, flag: string | undefined): Promise<string> {
  if (flag !== undefined) return normalizeServerUrl(flag, '--url');
  const fromEnv = io.env.GATEWAY_URL?.trim();
  if (fromEnv) return normalizeServerUrl(fromEnv, 'GATEWAY_URL');
  const remembered = await readDefaultUrl(io.env);
  return remembered === undefined
    ? DEFAULT_SERVER_URL
    : normalizeServerUrl(remembered, 'the saved gateway URL');
}

/**
 * The credential a command uses: `GATEWAY_TOKEN` when set (for CI; the user to act for is
 * `GATEWAY_USER_ID` when set, else the stored sign-in's with the same token, else left for
 * `GatewayApi.userId()` to ask the gateway), else the one `gateway login` stored for the
 * gateway. Undefined when there is none. With `GATEWAY_TOKEN` the stores are read only if a
 * command needs the user and `GATEWAY_USER_ID` does not say it ({@link Session.storedUserId}).
 */
export async function loadSession(options: SessionOptions): Promise<Session | undefined> {
  const { io } = options;
  const url = await resolveServerUrl(io, options.url);
  const store = new CredentialStore({ env: io.env, keychain: options.keychain });
  const envToken = io.env.GATEWAY_TOKEN?.trim();
  if (envToken) {
    return {
      url,
      token: envToken,
      userId: io.env.GATEWAY_USER_ID?.trim() || undefined,
      storedUserId: async () => {
        const stored = await store.load(url);
        return stored?.credential.token === envToken ? stored.credential.userId : undefined;
      },
      source: 'env',
    };
  }
  const stored = await store.load(url);
  if (stored === undefined) return undefined;
  return {
    url,
    token: stored.credential.token,
    userId: stored.credential.userId,
    tokenId: stored.credential.tokenId,
    source: stored.source,
    file: stored.file,
  };
}

/**
 * Like {@link loadSession}, for commands that need a credential.
 *
 * @throws CliError (exit 4) "Not signed in. Run `gateway login`." when there is none.
 */
export async function requireSession(options: SessionOptions): Promise<Session> {
  const session = await loadSession(options);
  if (session === undefined) throw new CliError(NOT_SIGNED_IN, { exitCode: 4 });
  return session;
}
