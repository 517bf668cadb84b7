import type { Fetch } from '../../api/gateway-api.js';
import { GatewayApi } from '../../api/gateway-api.js';
import type { Me } from '../../api/schemas.js';
import type { CredentialSource } from '../../credentials/credential-store.js';
import type { Keychain } from '../../credentials/keychain.js';
import { requireSession } from '../../credentials/session.js';
import type { Io } from '../../output/io.js';
import { maskToken } from '../../output/mask.js';
import { formatMoment } from '../../output/moment.js';

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
  /** Whose the token is, as the gateway says (`GET /api/me`). */
  kind: Me['kind'];
  /** The token's user; null for a service account key or the service secret. */
  userId: string | null;
  /** The user's email (`kind: 'user'`). */
  email?: string;
  /** The user's or the service account's name. */
  name?: string;
  /** The role that applies to the user or service account. */
  roleId?: string;
  /** Whether the user is an admin (`kind: 'user'`). */
  isAdmin?: boolean;
  /** `kind: 'service_account'`. */
  serviceAccountId?: string;
  /** `GATEWAY_USER_ID`, when it names another user than the token's: whom user commands act for. */
  actingFor?: string;
  /** `keychain`, `file` or `env` (`GATEWAY_TOKEN`). */
  store: CredentialSource;
  /** The credentials file, when `store` is `file`. */
  file?: string;
  /** The token, masked. */
  token: string;
  /**
   * When the token stops working, for a CLI token: null when it never does (issued before CLI
   * tokens expired). Absent for other credentials and from gateways that do not say.
   */
  tokenExpiresAt?: string | null;
}

const STORE_NAMES: Record<CredentialSource, string> = {
  keychain: 'the OS keychain',
  file: 'the credentials file',
  env: 'GATEWAY_TOKEN (environment)',
};

/** The fields of `GET /api/me` that `whoami` shows, by kind (nothing unknown is passed on). */
function callerFields(caller: Me): Omit<WhoamiResult, 'url' | 'store' | 'file' | 'token'> {
  switch (caller.kind) {
    case 'user':
      return {
        kind: 'user',
        userId: caller.userId,
        email: caller.email,
        name: caller.name,
        roleId: caller.roleId,
        isAdmin: caller.isAdmin,
        ...(caller.token === undefined ? {} : { tokenExpiresAt: caller.token.expiresAt }),
      };
    case 'service_account':
      return {
        kind: 'service_account',
        userId: null,
        serviceAccountId: caller.serviceAccountId,
        name: caller.name,
        roleId: caller.roleId,
      };
    case 'service':
      return { kind: 'service', userId: null };
  }
}

/** The lines under "Signed in to ...", labels aligned. */
function describe(result: WhoamiResult, where: string): string {
  const rows: [string, string][] = [];
  if (result.kind === 'user') {
    rows.push(['user', `${result.email} (${result.userId})`]);
    rows.push(['role', result.roleId ?? '']);
  } else if (result.kind === 'service_account') {
    rows.push(['service account', `${result.name} (${result.serviceAccountId})`]);
    rows.push(['role', result.roleId ?? '']);
  } else {
    rows.push(['caller', 'the service secret (SERVICE_API_SECRET), no user']);
  }
  if (result.actingFor !== undefined) {
    rows.push(['acting for', `${result.actingFor} (GATEWAY_USER_ID)`]);
  }
  rows.push(['token', `${result.token}, from ${where}`]);
  if (result.tokenExpiresAt !== undefined) {
    rows.push([
      'expires',
      result.tokenExpiresAt === null
        ? 'never (issued before CLI tokens expired; run `gateway login` for one that does)'
        : formatMoment(result.tokenExpiresAt),
    ]);
  }
  const width = Math.max(...rows.map(([label]) => label.length)) + 1;
  return rows.map(([label, value]) => `  ${`${label}:`.padEnd(width)} ${value}\n`).join('');
}

/**
 * `gateway whoami`: whose the token is, as the gateway says (`GET /api/me`: a user with their
 * email and role, a service account, or the service secret), the gateway, and which store holds
 * the credential (OS keychain, credentials file, or `GATEWAY_TOKEN`), and when a CLI token
 * expires. Asking the gateway also proves the token still works.
 *
 * @throws CliError (exit 4) when not signed in, the sign-in expired, or the gateway rejects the
 * token.
 */
export async function runWhoami(options: WhoamiOptions): Promise<WhoamiResult> {
  const { io } = options;
  const session = await requireSession(options);
  const api = new GatewayApi(session, { fetch: options.fetch, io });
  const caller = callerFields(await api.me());
  // A service account acts for nobody, whatever GATEWAY_USER_ID says.
  const actingFor =
    caller.kind !== 'service_account' &&
    session.userId !== undefined &&
    session.userId !== caller.userId
      ? session.userId
      : undefined;
  const result: WhoamiResult = {
    url: session.url,
    ...caller,
    ...(actingFor === undefined ? {} : { actingFor }),
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
  io.stdout.write(`Signed in to ${session.url}\n${describe(result, where)}`);
  return result;
}
