import { CallFailure } from '../tool-sources/index.js';

/** The upstream answered 401 or 403 to the credential sent. */
export class UpstreamRefusedFailure extends CallFailure {
  constructor(
    readonly status: 401 | 403,
    message: string,
    recorded: string,
  ) {
    super(message, recorded);
  }
}
