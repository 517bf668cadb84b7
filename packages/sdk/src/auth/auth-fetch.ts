import type { AuthFetchInit, AuthResolver, GetTokenOptions } from '../context/types.js';
import { AuthRequiredError } from '../errors/auth-required-error.js';
import { ToolError } from '../errors/tool-error.js';
import type { AuthProvider } from '../plugin/types.js';

/** The longest `Retry-After` repeated to the caller, in seconds (a day). */
const MAX_RETRY_AFTER_SECONDS = 86_400;

/**
 * The upstream is busy or down for a while (429 or 503): the call may be tried again after
 * `retryAfterSeconds` when the upstream said (`Retry-After`). A `ToolError`, so the caller reads
 * its message.
 */
export class UpstreamUnavailableError extends ToolError {
  readonly status: number;
  readonly retryAfterSeconds: number | undefined;

  constructor(message: string, status: number, retryAfterSeconds: number | undefined) {
    super(message);
    this.name = 'UpstreamUnavailableError';
    this.status = status;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** What {@link createAuthResolver} builds `ctx.auth` from. */
export interface AuthResolverParts {
  /** Vends the credential (the gateway's sources in order, or a test's tokens). */
  getToken(provider: string, options?: GetTokenOptions): Promise<string>;
  /** The plugin's providers: how each one's credential is sent. */
  providers: readonly AuthProvider[];
  /**
   * Told when the upstream answered 401 to a credential (the gateway marks the user's connection
   * for a reconnect); may give the message the caller reads.
   */
  onUnauthorized?(provider: string): Promise<string | undefined> | string | undefined;
  /** The fetch to send with (the global one, undici's, by default). */
  fetch?: typeof fetch;
}

/**
 * `ctx.auth`: `getToken()` as given, and `fetch(provider, url, init)`, which sends the provider's
 * credential the way the provider's `send` says (default `Authorization: Bearer <token>`) and
 * turns the answers a tool cannot act on into tool errors the model and the user can:
 *
 * - 401: `AuthRequiredError` (the user must connect or reconnect the provider);
 * - 403: `ToolError`, the credential lacks access (scopes, permissions);
 * - 404: `ToolError`, nothing at that address;
 * - 429 and 503: `UpstreamUnavailableError`, with `Retry-After` when the upstream gave one.
 *
 * Any other answer is returned as it is. The credential never appears in an error (messages name
 * the host and path, never the query or the headers).
 *
 * @example
 * const auth = createAuthResolver({ getToken, providers: plugin.authProviders });
 * const response = await auth.fetch('github', 'https://api.github.com/user');
 */
export function createAuthResolver(parts: AuthResolverParts): AuthResolver {
  const send = parts.fetch ?? ((input, init) => fetch(input, init));
  return {
    getToken: (provider, options) => parts.getToken(provider, options),
    async fetch(provider, url, init = {}) {
      const { instance, ...rest } = init as AuthFetchInit;
      const token = await parts.getToken(provider, instance === undefined ? {} : { instance });
      const entry = parts.providers.find((candidate) => candidate.id === provider);
      const header = entry?.send?.header?.toLowerCase() ?? 'authorization';
      const scheme = entry?.send?.scheme ?? (header === 'authorization' ? 'Bearer' : '');
      const headers = new Headers(rest.headers);
      headers.set(header, scheme === '' ? token : `${scheme} ${token}`);
      const target = describe(url);
      let response: Response;
      try {
        response = await send(url, { ...rest, headers });
      } catch (error) {
        if (error instanceof Error && error.name === 'AbortError') throw error;
        throw new ToolError(`Could not reach ${target} (${networkReason(error)}).`);
      }
      switch (response.status) {
        case 401: {
          await response.body?.cancel();
          const message = await parts.onUnauthorized?.(provider);
          throw new AuthRequiredError(
            provider,
            message ??
              `${target} refused your "${provider}" credential (401: revoked or expired). Reconnect it in the Tools tab of the web app or run \`gateway connect ${provider}\`.`,
          );
        }
        case 403:
          await response.body?.cancel();
          throw new ToolError(
            `${target} answered 403 Forbidden: your "${provider}" credential lacks access to it (its scopes or permissions). Ask for access, or reconnect "${provider}" with more scopes.`,
          );
        case 404:
          await response.body?.cancel();
          throw new ToolError(
            `${target} answered 404 Not Found: nothing is there, or it is not visible to your "${provider}" account.`,
          );
        case 429:
        case 503: {
          await response.body?.cancel();
          const after = retryAfter(response.headers.get('retry-after'));
          const busy =
            response.status === 429 ? '429 Too Many Requests' : '503 Service Unavailable';
          throw new UpstreamUnavailableError(
            `${target} answered ${busy}; try again ${after === undefined ? 'later' : `in ${after} s`}.`,
            response.status,
            after,
          );
        }
        default:
          return response;
      }
    },
  };
}

/** `https://api.example.com/v1/items` of a URL: no query, no fragment, no credentials. */
function describe(url: string | URL): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return 'the upstream';
  }
}

function networkReason(error: unknown): string {
  const cause =
    error instanceof Error ? (error.cause as { code?: unknown } | undefined) : undefined;
  return typeof cause?.code === 'string' ? cause.code : 'no answer';
}

/** Seconds from a `Retry-After` header (seconds or an HTTP date), capped at a day. */
function retryAfter(value: string | null): number | undefined {
  if (value === null) return undefined;
  const trimmed = value.trim();
  let seconds: number;
  if (/^\d+$/.test(trimmed)) seconds = Number(trimmed);
  else {
    const at = Date.parse(trimmed);
    if (Number.isNaN(at)) return undefined;
    seconds = Math.max(0, Math.ceil((at - Date.now()) / 1000));
  }
  return Math.min(seconds, MAX_RETRY_AFTER_SECONDS);
}
