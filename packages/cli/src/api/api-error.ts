import { z } from 'zod';
import { CliError } from '../cli-error.js';
import { NOT_SIGNED_IN } from '../credentials/session.js';
import { formatMoment } from '../output/moment.js';

/** The `details` of the gateway's 401 for an expired CLI token. */
const expiredDetails = z.object({ reason: z.literal('cli_token_expired'), expiresAt: z.string() });

const errorBodySchema = z.object({
  error: z.object({
    code: z.string(),
    message: z.string(),
    details: z.unknown().optional(),
  }),
});

/** A gateway's non-2xx answer, as the one-line error the CLI prints; `status` is the HTTP status. */
export class GatewayRefusal extends CliError {
  readonly status: number;
  /** For a 401 refusing an expired CLI token: when it expired (ISO 8601). */
  readonly expiredAt: string | undefined;

  constructor(status: number, message: string, exitCode: 1 | 4, expiredAt?: string) {
    super(message, { exitCode });
    this.name = 'GatewayRefusal';
    this.status = status;
    this.expiredAt = expiredAt;
  }
}

/** How to word a refusal for the command at hand. */
export interface RefusalContext {
  /** The gateway's base URL. */
  base: string;
  /** The token came from `GATEWAY_TOKEN` (a 401 then says so instead of "run gateway login"). */
  fromEnv?: boolean;
  /** Appended to a 404's message, e.g. "see `gateway connections list`". */
  notFoundHint?: string;
  /** Appended to a 409's message. */
  conflictHint?: string;
}

/** The `{ error: { message, details } }` of a gateway answer, when it has that shape. */
export function errorOf(
  body: unknown,
): { code: string; message: string; details?: unknown } | undefined {
  const parsed = errorBodySchema.safeParse(body);
  return parsed.success ? parsed.data.error : undefined;
}

/**
 * The `details` of a gateway's 400 as text to append to its message: ` (path: problem; ...)` for
 * validation issues (`{ path, message }`), the strings as they are, and nothing for parts the
 * message already says (e.g. the tool paths of a `path_outside_namespace`).
 *
 * @example
 * `${error.message}${detailsText(error.details, error.message)}` // "Invalid body (namespace: ...)"
 */
export function detailsText(details: unknown, message = ''): string {
  if (!Array.isArray(details)) return '';
  const parts = details.map((detail) => {
    const item = z.object({ path: z.string(), message: z.string() }).safeParse(detail);
    if (!item.success) return typeof detail === 'string' ? detail : '';
    return item.data.path === '' ? item.data.message : `${item.data.path}: ${item.data.message}`;
  });
  const text = parts.filter((part) => part !== '' && !message.includes(part)).join('; ');
  return text === '' ? '' : ` (${text})`;
}

/**
 * The one-line CliError for a gateway's non-2xx answer, with the CLI's exit codes: 401 and 403
 * exit 4 (not signed in, sign-in expired, forbidden), anything else 1.
 *
 * @example
 * throw refusal(404, body, { base, notFoundHint: 'see `gateway endpoints list`' });
 */
export function refusal(status: number, body: unknown, context: RefusalContext): GatewayRefusal {
  const error = errorOf(body);
  const message = (error?.message ?? `HTTP ${status}`).replace(/\.$/, '');
  switch (status) {
    case 401: {
      const expired = expiredDetails.safeParse(error?.details);
      if (expired.success) {
        const on = formatMoment(expired.data.expiresAt);
        return new GatewayRefusal(
          status,
          context.fromEnv
            ? `GATEWAY_TOKEN expired on ${on}; set a new token, or unset it and run \`gateway login\``
            : `Your sign-in expired on ${on}. Run \`gateway login\`.`,
          4,
          expired.data.expiresAt,
        );
      }
      return new GatewayRefusal(
        status,
        context.fromEnv
          ? `The gateway at ${context.base} rejected GATEWAY_TOKEN; set a valid token, or unset it and run \`gateway login\``
          : NOT_SIGNED_IN,
        4,
      );
    }
    case 403:
      return new GatewayRefusal(status, `Not allowed: ${message}`, 4);
    case 404:
      return new GatewayRefusal(
        status,
        context.notFoundHint ? `${message}; ${context.notFoundHint}` : message,
        1,
      );
    case 409:
      return new GatewayRefusal(
        status,
        context.conflictHint ? `${message}; ${context.conflictHint}` : message,
        1,
      );
    case 400:
      return new GatewayRefusal(
        status,
        `The gateway refused the request: ${message}${detailsText(error?.details, message)}`,
        1,
      );
    case 429:
      return new GatewayRefusal(status, `${message} (rate limited)`, 1);
    default:
      return new GatewayRefusal(
        status,
        `The gateway at ${context.base} answered ${status}: ${message}`,
        1,
      );
  }
}
