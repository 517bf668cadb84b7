import type { SourceCall } from './tool-source.js';

/**
 * Why a tool stopped before returning, when it was not its own doing: the reason a
 * {@link SourceCall}'s signal aborts with (a timeout or the client's cancel).
 */
export class Stopped extends Error {
  readonly reason: 'timeout' | 'cancelled';

  constructor(reason: 'timeout' | 'cancelled') {
    super(reason);
    this.reason = reason;
  }
}
