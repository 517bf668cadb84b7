import { GatewayError, hasMarker } from './gateway-error.js';

const marker = Symbol.for('gateway.error.ToolError');

/**
 * An error a tool handler throws to tell the caller what went wrong in words meant for them.
 * The gateway turns it into an error result carrying `message`; any other thrown error becomes a
 * generic message, its details kept in the server log.
 *
 * @example
 * if (!response.ok) throw new ToolError(`Weather service answered ${response.status}`);
 */
export class ToolError extends GatewayError {
  readonly [marker] = true;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ToolError';
  }

  /** Whether `error` is a ToolError from any copy of the sdk. */
  static override isInstance(error: unknown): error is ToolError {
    return hasMarker(error, marker);
  }
}
