import type { ElicitResult } from '../context/types.js';
import { GatewayError, hasMarker } from './gateway-error.js';

const marker = Symbol.for('gateway.error.ApprovalDeniedError');

/**
 * Thrown by `requireApproval()` when the user declines, cancels or lets an approval time out.
 * The tool stops before acting; the caller sees an error result saying the action was not
 * approved.
 */
export class ApprovalDeniedError extends GatewayError {
  readonly [marker] = true;
  /** The tool, when the request named it (the gateway names it in what the caller sees). */
  readonly toolPath: string | undefined;
  readonly executionId: string;

  constructor(toolPath: string | undefined, result: Pick<ElicitResult, 'executionId'>) {
    super(`The user did not approve ${toolPath ?? 'this call'}; nothing was changed.`);
    this.name = 'ApprovalDeniedError';
    this.toolPath = toolPath;
    this.executionId = result.executionId;
  }

  /** Whether `error` is an ApprovalDeniedError from any copy of the sdk. */
  static override isInstance(error: unknown): error is ApprovalDeniedError {
    return hasMarker(error, marker);
  }
}
