import { CallFailure } from '../tool-sources/index.js';

/** The upstream answered 401 or 403 to the credential sent. */
export class UpstreamRefusedFailure extends CallFailure {
  constructor(
    readonly status: 401 | 403,
    message: string,
    recorded: string,
    /** The answer's `WWW-Authenticate` challenge, for step-up authorization (at most 2,000 characters). */
    readonly challenge?: string,
  ) {
    super(message, recorded);
  }
}

/**
 * Whether a refusal's challenge says the token lacks scope (RFC 6750 §3.1 `insufficient_scope`),
 * as opposed to being refused outright.
 */
export function asksForScope(challenge: string | undefined): boolean {
  return challenge !== undefined && /\berror\s*=\s*"?insufficient_scope\b/i.test(challenge);
}
