import type { AuthResolver } from '@gateway/sdk';
import { createAuthResolver } from '@gateway/sdk/kernel';
import type { Redactor } from '../http/redact.js';

/**
 * What one tool call masks. Until the call is vended a credential it is the server's redactor
 * (its configured secrets and token shapes) and nothing more is made: most calls vend nothing.
 * The first value `ctx.auth.getToken` returns makes a child redactor that masks every value
 * vended in this call, in the forms a leak would take (see `Redactor.addVended`), wherever the
 * call's text goes: log lines and their notifications, progress messages, error messages, the
 * execution record, questions and sampling requests, and the result.
 *
 * @example
 * const redaction = new CallRedaction(services.redactor);
 * const auth = redaction.watch(services.tokens.resolverFor(userId, providers));
 * const token = await auth.getToken('github');
 * redaction.message(`bad key ${token}`); // 'bad key [redacted]'
 */
export class CallRedaction {
  readonly #server: Redactor;
  #call: Redactor | undefined;

  constructor(server: Redactor) {
    this.#server = server;
  }

  /** Whether a value was vended in this call (so there is something beyond the server's to mask). */
  get vended(): boolean {
    return this.#call !== undefined;
  }

  /** `resolver` with every credential it returns remembered for masking before it is handed over. */
  watch(resolver: Pick<AuthResolver, 'getToken'> & Partial<AuthResolver>): AuthResolver {
    const getToken: AuthResolver['getToken'] = async (provider, options) => {
      const token = await resolver.getToken(provider, options);
      this.remember(token);
      return token;
    };
    const fetch = resolver.fetch ?? createAuthResolver({ getToken, providers: [] }).fetch;
    return { getToken, fetch };
  }

  /** Masks `value` (and its encodings) for the rest of the call. */
  remember(value: unknown): void {
    if (typeof value !== 'string') return;
    this.#call ??= this.#server.child();
    this.#call.addVended(value);
  }

  /** A log or progress text: token shapes, configured secrets and vended values masked. */
  readonly text = (text: string): string => (this.#call ?? this.#server).text(text);

  /** Log fields: as {@link CallRedaction.text}, and secret-named fields dropped. */
  readonly value = (value: unknown): unknown => (this.#call ?? this.#server).value(value);

  /**
   * What the client or the record reads (messages, results, arguments, questions): only literal
   * values (the vended ones, and the server's configured secrets) are masked, not token shapes
   * or secret-named fields, so a tool may still return a `nextPageToken`. Unchanged, at no cost,
   * when nothing was vended.
   */
  message(text: string): string {
    return this.#call === undefined ? text : this.#call.literals(text);
  }

  /** {@link CallRedaction.message} for every string of a JSON-like value (copied when changed). */
  data<T>(value: T): T {
    // A copy of a value of type T with strings replaced by strings is still a T.
    return this.#call === undefined ? value : (this.#call.deepLiterals(value) as T);
  }
}
