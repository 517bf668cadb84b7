import type { ProgressToken } from '@modelcontextprotocol/server';
import type { CallContext } from '../call-site.js';

/** Longest progress message passed on; longer ones are cut. */
const MAX_MESSAGE_LENGTH = 1000;

/**
 * The `notifications/progress` of one request, for the client that asked for them (sent a
 * `progressToken`); without a token every report is dropped. The handler's reports
 * (`call.reportProgress`) and the gateway's heartbeats while a call waits for an approval share
 * one sequence, whose progress strictly increases as the spec requires: a report that does not
 * increase is dropped, and a heartbeat adds a negligible amount to the last value, so a progress
 * bar stays where the tool left it.
 */
export class ProgressReporter {
  readonly #token: ProgressToken | undefined;
  readonly #request: CallContext['mcpReq'];
  readonly #redact: (text: string) => string;
  #last: number | undefined;
  #total: number | undefined;

  constructor(ctx: CallContext, redact: (text: string) => string) {
    this.#token = ctx.mcpReq._meta?.progressToken;
    this.#request = ctx.mcpReq;
    this.#redact = redact;
  }

  /** Whether the client asked for progress (sent a token): else every report is dropped. */
  get wanted(): boolean {
    return this.#token !== undefined;
  }

  /** `call.reportProgress` of the handler: never throws, never waits. */
  readonly report = (progress: number, total?: number, message?: string): void => {
    if (this.#token === undefined || typeof progress !== 'number' || !Number.isFinite(progress)) {
      return;
    }
    if (this.#last !== undefined && progress <= this.#last) return;
    this.#total = typeof total === 'number' && Number.isFinite(total) ? total : undefined;
    this.#send(progress, message);
  };

  /** Tells the client the call is alive (while it waits for the user), with `message`. */
  heartbeat(message: string): void {
    if (this.#token === undefined) return;
    const last = this.#last;
    this.#send(last === undefined ? 0 : last + Math.max(Math.abs(last), 1) * 1e-9, message);
  }

  #send(progress: number, message: unknown): void {
    if (this.#token === undefined) return;
    this.#last = progress;
    const text =
      typeof message === 'string' ? this.#redact(message.slice(0, MAX_MESSAGE_LENGTH)) : undefined;
    void this.#request
      .notify({
        method: 'notifications/progress',
        params: {
          progressToken: this.#token,
          progress,
          ...(this.#total === undefined ? {} : { total: this.#total }),
          ...(text === undefined ? {} : { message: text }),
        },
      })
      // A notification to a client that has gone is dropped: the call's answer still settles.
      .catch(() => {});
  }
}
