import { GatewayError, hasMarker } from './gateway-error.js';

const marker = Symbol.for('gateway.error.AuthRequiredError');

/**
 * Thrown by `ctx.auth.getToken(provider)` when no credential for `provider` is available: the user
 * has no connection, no team connection exists, no OAuth account is linked and no server key is
 * set. The gateway tells the user how to connect (the web app's Tools tab or
 * `gateway connect <provider>`).
 */
export class AuthRequiredError extends GatewayError {
  readonly [marker] = true;
  readonly provider: string;

  constructor(provider: string, message?: string) {
    super(
      message ??
        `No credential for "${provider}". Connect it in the Tools tab of the web app or run \`gateway connect ${provider}\`.`,
    );
    this.name = 'AuthRequiredError';
    this.provider = provider;
  }

  /** Whether `error` is an AuthRequiredError from any copy of the sdk. */
  static override isInstance(error: unknown): error is AuthRequiredError {
    return hasMarker(error, marker);
  }
}
