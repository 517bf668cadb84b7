import type { z } from 'zod';
import { CliError } from '../cli-error.js';
import type { Session } from '../credentials/session.js';
import type { Io } from '../output/io.js';
import { withSpinner } from '../output/spinner.js';
import { GatewayRefusal, type RefusalContext, refusal } from './api-error.js';
import { type Me, me } from './schemas.js';

/** An HTTP client: the global fetch, or a stand-in in tests. */
export type Fetch = typeof fetch;

/** One request to the gateway. */
export interface ApiRequest<T> {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  query?: Record<string, string | undefined>;
  body?: unknown;
  /** What a 2xx answer must look like. */
  schema: z.ZodType<T>;
  notFoundHint?: string;
  conflictHint?: string;
}

/**
 * Sends one JSON request to the gateway at `base` (with the bearer `token`, when given) and
 * parses the answer with the request's schema.
 *
 * @throws CliError: one line per failure: unreachable (1), refused (see `refusal`), or an
 * answer of an unexpected shape (1).
 */
export async function callGateway<T>(
  options: { base: string; token?: string; fetch?: Fetch; fromEnv?: boolean; io?: Io },
  request: ApiRequest<T>,
): Promise<T> {
  const { base } = options;
  const url = new URL(`${base}${request.path}`);
  for (const [key, value] of Object.entries(request.query ?? {})) {
    if (value !== undefined) url.searchParams.set(key, value);
  }
  const headers: Record<string, string> = { accept: 'application/json' };
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  if (request.body !== undefined) headers['content-type'] = 'application/json';
  const send = () =>
    (options.fetch ?? fetch)(url, {
      method: request.method,
      headers,
      ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
    });
  let response: Response;
  try {
    // A spinner only at a terminal, and only once the gateway takes more than a second.
    response = await (options.io === undefined
      ? send()
      : withSpinner(options.io, `Waiting for ${url.host}`, send));
  } catch (error) {
    throw new CliError(
      `Could not reach the gateway at ${base}; is it running? Pass --url or set GATEWAY_URL`,
      { cause: error },
    );
  }
  const text = await response.text();
  let body: unknown;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (!response.ok) {
    const context: RefusalContext = { base, fromEnv: options.fromEnv ?? false };
    if (request.notFoundHint !== undefined) context.notFoundHint = request.notFoundHint;
    if (request.conflictHint !== undefined) context.conflictHint = request.conflictHint;
    throw refusal(response.status, body, context);
  }
  const parsed = request.schema.safeParse(body);
  if (!parsed.success) {
    throw new CliError(
      `The gateway at ${base} answered ${request.method} ${request.path} in a shape this CLI does not know; is it a Gateway server of the same version?`,
    );
  }
  return parsed.data;
}

/**
 * The gateway as the signed-in user sees it: every request carries the session's token.
 *
 * @example
 * const api = new GatewayApi(session, { fetch: options.fetch, io });
 * const { connections } = await api.call({ method: 'GET', path: '/api/connections', query: { userId: await api.userId() }, schema });
 */
export class GatewayApi {
  readonly session: Session;
  readonly #fetch: Fetch | undefined;
  readonly #io: Io | undefined;
  #me: Promise<Me> | undefined;
  #storedUserId: Promise<string | undefined> | undefined;

  constructor(session: Session, options: { fetch?: Fetch | undefined; io?: Io } = {}) {
    this.session = session;
    this.#fetch = options.fetch;
    this.#io = options.io;
  }

  /** The gateway's base URL. */
  get base(): string {
    return this.session.url;
  }

  /**
   * Whose the token is (`GET /api/me`): a user, a service account or the service secret. Asked
   * once; later calls reuse the answer.
   *
   * @throws CliError as {@link callGateway} (exit 4 when the gateway rejects the token).
   */
  me(): Promise<Me> {
    this.#me ??= this.call({ method: 'GET', path: '/api/me', schema: me });
    return this.#me;
  }

  /**
   * The user the user-scoped routes act for (their `userId`): the session's, from
   * `GATEWAY_USER_ID` or the stored sign-in, else the token's own user, asked of the gateway
   * once ({@link me}).
   *
   * @throws CliError (exit 4) when the token is no user's (a service account key, or the service
   * secret without `GATEWAY_USER_ID`), or the gateway is too old to say whose it is.
   */
  async userId(): Promise<string> {
    if (this.session.userId !== undefined) return this.session.userId;
    this.#storedUserId ??= this.session.storedUserId?.() ?? Promise.resolve(undefined);
    const stored = await this.#storedUserId;
    if (stored !== undefined) return stored;
    const token = this.session.source === 'env' ? 'GATEWAY_TOKEN' : 'The stored token';
    const caller = await this.me().catch((error: unknown) => {
      if (!(error instanceof GatewayRefusal && error.status === 404)) throw error;
      throw new CliError(
        `The gateway at ${this.base} cannot say whose ${token} is (it has no GET /api/me; an older version?); set GATEWAY_USER_ID to your user id`,
        { exitCode: 4, cause: error },
      );
    });
    if (caller.kind === 'user') return caller.userId;
    throw new CliError(
      caller.kind === 'service_account'
        ? `${token} is a service account key; user commands need a CLI token from \`gateway login\``
        : `${token} is the service secret, which is no user; set GATEWAY_USER_ID to the user to act for, or use a CLI token from \`gateway login\``,
      { exitCode: 4 },
    );
  }

  call<T>(request: ApiRequest<T>): Promise<T> {
    return callGateway(
      {
        base: this.session.url,
        token: this.session.token,
        fromEnv: this.session.source === 'env',
        ...(this.#fetch === undefined ? {} : { fetch: this.#fetch }),
        ...(this.#io === undefined ? {} : { io: this.#io }),
      },
      request,
    );
  }
}
