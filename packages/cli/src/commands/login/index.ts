import { hostname } from 'node:os';
import { callGateway, type Fetch } from '../../api/gateway-api.js';
import { revokeCliToken } from '../../api/revoke-cli-token.js';
import { cliTokenIssued, health, me } from '../../api/schemas.js';
import { CliError } from '../../cli-error.js';
import { CredentialStore } from '../../credentials/credential-store.js';
import type { Keychain } from '../../credentials/keychain.js';
import { resolveServerUrl } from '../../credentials/session.js';
import { writeDefaultUrl } from '../../credentials/settings.js';
import type { BrowserOpener } from '../../loopback/browser.js';
import { runBrowserFlow } from '../../loopback/browser-flow.js';
import { createPkce, createState, type Pkce } from '../../loopback/pkce.js';
import { createColors } from '../../output/color.js';
import type { Io } from '../../output/io.js';
import { formatMoment } from '../../output/moment.js';
import { printJson } from '../../output/table.js';

/** Options of `runLogin()`. */
export interface LoginOptions {
  io: Io;
  /** The gateway. Default: `GATEWAY_URL`, else the last one signed in to, else http://127.0.0.1:8787. */
  url?: string | undefined;
  /** False: print the URL without opening a browser (`--no-browser`). */
  browser?: boolean | undefined;
  /** Default: the system browser. Tests pass one that signs in over HTTP. */
  openBrowser?: BrowserOpener | undefined;
  /** Default: the global fetch. */
  fetch?: Fetch | undefined;
  /** The OS keychain; `null` where none answers. Default: the real one. */
  keychain?: Keychain | null | undefined;
  /** How long to wait for the browser. Default 5 minutes. */
  timeoutMs?: number | undefined;
  /** Print the {@link LoginResult} as JSON on stdout (warnings stay on stderr). */
  json?: boolean | undefined;
}

/** What `gateway login` stored. */
export interface LoginResult {
  url: string;
  userId: string;
  /** The signed-in user's email; absent from gateways without `GET /api/me`. */
  email?: string;
  /** The CLI token's id (the token itself is only in the store). */
  tokenId: string;
  /** When the token stops working (`GATEWAY_CLI_TOKEN_DAYS`); absent from gateways whose tokens never expire. */
  expiresAt?: string;
  store: 'keychain' | 'file';
  /** The credentials file, when `store` is `file`. */
  file?: string;
}

/**
 * `gateway login`: signs in through the browser with the loopback flow of RFC 8252 (a listener
 * on 127.0.0.1 at a port the OS picks, `state` and PKCE S256), exchanges the one-time code at
 * `POST /api/cli/token` for a CLI token, and stores it in the OS keychain, or where none
 * answers in `~/.config/gateway/credentials.json` (mode 0600) with a warning naming the file. A
 * token stored earlier for the same gateway is revoked.
 *
 * @throws CliError: denied in the browser (exit 4); state mismatch, timeout, unreachable
 * gateway or refused code (exit 1).
 */
export async function runLogin(options: LoginOptions): Promise<LoginResult> {
  const { io } = options;
  const base = await resolveServerUrl(io, options.url);
  const client = { base, io, ...(options.fetch === undefined ? {} : { fetch: options.fetch }) };
  // Fails fast on a wrong URL, rather than after the browser shows an error and 5 minutes pass.
  await callGateway(client, { method: 'GET', path: '/healthz', schema: health });
  const pkce = createPkce();
  const { code, redirectUri } = await signInInBrowser(options, base, pkce);
  const issued = await callGateway(client, {
    method: 'POST',
    path: '/api/cli/token',
    body: { code, code_verifier: pkce.verifier, redirect_uri: redirectUri },
    schema: cliTokenIssued,
  });
  const email = await emailOf(client, issued.token);
  const saved = await storeToken(options, base, issued);
  const result: LoginResult = {
    url: base,
    userId: issued.userId,
    ...(email === undefined ? {} : { email }),
    tokenId: issued.id,
    ...(issued.expiresAt === undefined ? {} : { expiresAt: issued.expiresAt }),
    store: saved.source,
    ...(saved.source === 'file' ? { file: saved.file } : {}),
  };
  reportLogin(options, result, saved);
  return result;
}

/**
 * The one-time code the browser brings back to the loopback listener, and the redirect URI it
 * was sent to (the token exchange names it again).
 */
async function signInInBrowser(
  options: LoginOptions,
  base: string,
  pkce: Pkce,
): Promise<{ code: string; redirectUri: string }> {
  const state = createState();
  let redirectUri = '';
  const code = await runBrowserFlow({
    io: options.io,
    browser: options.browser,
    openBrowser: options.openBrowser,
    timeoutMs: options.timeoutMs,
    purpose: `sign in to ${base}`,
    pageUrl(uri) {
      redirectUri = uri;
      const query = new URLSearchParams({
        response_type: 'code',
        redirect_uri: uri,
        state,
        code_challenge: pkce.challenge,
        code_challenge_method: 'S256',
        client_name: `gateway CLI on ${hostname()}`.slice(0, 100),
      });
      return `${base}/cli/authorize?${query}`;
    },
    accept: (query) => codeOf(query, state),
    success: {
      title: 'Signed in',
      message: 'The gateway command line is signed in. You can close this tab.',
    },
    timeoutMessage: (duration) =>
      `Timed out after ${duration} waiting for the browser; run \`gateway login\` again`,
  });
  return { code, redirectUri };
}

/** The code of the browser's answer to the request of `state`; a CliError for anything else. */
function codeOf(query: URLSearchParams, state: string): string {
  // State first: an answer to some other request says nothing this flow should believe.
  if (query.get('state') !== state) {
    throw new CliError(
      'The browser answered a different sign-in request (state mismatch); run `gateway login` again',
    );
  }
  const error = query.get('error');
  if (error !== null) {
    throw new CliError(
      error === 'access_denied'
        ? 'Sign-in was denied in the browser; run `gateway login` again to retry'
        : `Sign-in failed in the browser (${error}); run \`gateway login\` again`,
      { exitCode: 4 },
    );
  }
  const value = query.get('code');
  if (!value) throw new CliError('The browser came back without a code; run `gateway login` again');
  return value;
}

/**
 * Stores the issued token for `base` (the keychain, else the credentials file), makes `base` the
 * default gateway, and revokes the token stored before for it.
 */
async function storeToken(
  options: LoginOptions,
  base: string,
  issued: { token: string; userId: string; id: string },
) {
  const { io } = options;
  const store = new CredentialStore({ env: io.env, keychain: options.keychain });
  const previous = await store.load(base);
  const saved = await store.save({
    url: base,
    token: issued.token,
    userId: issued.userId,
    tokenId: issued.id,
  });
  await writeDefaultUrl(io.env, base);
  if (previous !== undefined && previous.credential.token !== issued.token) {
    await revokeCliToken(
      base,
      previous.credential.token,
      previous.credential.tokenId,
      options.fetch,
    );
  }
  return saved;
}

/** Says who is signed in where (or prints the result as JSON), and warns of what undermines it. */
function reportLogin(
  options: LoginOptions,
  result: LoginResult,
  saved: { source: 'keychain' } | { source: 'file'; file: string },
): void {
  const { io } = options;
  const c = createColors(io);
  if (options.json) printJson(io, result);
  else {
    const until =
      result.expiresAt === undefined
        ? ''
        : `; the sign-in expires on ${formatMoment(result.expiresAt)}`;
    // People know themselves by their email, not by an id (issue 18).
    const who = result.email ?? `user ${result.userId}`;
    io.stdout.write(`${c.green('✓')} Signed in to ${result.url} as ${who}${until}\n`);
    if (saved.source === 'keychain') io.stdout.write('  The token is stored in the OS keychain.\n');
  }
  if (saved.source === 'file') {
    io.stderr.write(
      `${c.yellow('warning:')} no OS keychain answered, so the token is stored in ${saved.file} (readable only by you)\n`,
    );
  }
  if (io.env.GATEWAY_TOKEN?.trim()) {
    io.stderr.write(
      `${c.yellow('warning:')} GATEWAY_TOKEN is set and overrides this sign-in; unset it to use it\n`,
    );
  }
}

/**
 * The email of the user `token` belongs to, from `GET /api/me`; undefined when the gateway does
 * not answer it (one older than the route), since the sign-in itself already succeeded.
 */
async function emailOf(
  client: Parameters<typeof callGateway>[0],
  token: string,
): Promise<string | undefined> {
  try {
    const caller = await callGateway(
      { ...client, token },
      { method: 'GET', path: '/api/me', schema: me },
    );
    return caller.kind === 'user' ? caller.email : undefined;
  } catch {
    return undefined;
  }
}
