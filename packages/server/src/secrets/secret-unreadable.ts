import { ToolError } from '@gateway/sdk';
import type { ConnectionOwner } from '../connections/tables.js';
import { Refusal } from '../errors/refusal.js';

/**
 * A stored connection secret that no configured auth secret opens (`AUTH_SECRET` or one of
 * `GATEWAY_PREVIOUS_AUTH_SECRETS`), or that was altered. Token vending throws it instead of
 * trying the next source, so a tool never runs with the server's `<UPPER>_API_KEY` in place of the
 * user's or team's own credential. A `ToolError`, so an MCP client sees its message as the tool
 * error; the message names the connection, never its value.
 *
 * @example
 * throw new SecretUnreadableError({ id, owner: 'team', toolId: 'github' });
 */
export class SecretUnreadableError extends ToolError {
  readonly code = 'secret_unreadable';
  readonly connectionId: string;
  readonly owner: ConnectionOwner;

  constructor(
    connection: { id: string; owner: ConnectionOwner; toolId: string },
    options?: { cause?: unknown },
  ) {
    const who =
      connection.owner === 'team'
        ? `an admin must enter the "${connection.toolId}" team connection's secret again`
        : `its owner must enter the "${connection.toolId}" secret again (Tools tab or \`gateway connect ${connection.toolId}\`)`;
    super(
      `The stored secret of ${connection.owner === 'team' ? 'team ' : ''}connection ${connection.id} cannot be decrypted with the gateway's configured auth secrets: ${who}, or the operator must add the AUTH_SECRET it was stored under to GATEWAY_PREVIOUS_AUTH_SECRETS.`,
      options,
    );
    this.name = 'SecretUnreadableError';
    this.connectionId = connection.id;
    this.owner = connection.owner;
  }

  /** The same error as a service's refusal (409 `secret_unreadable` over HTTP). */
  toRefusal(): Refusal {
    return new Refusal('secret_unreadable', this.message, { connectionId: this.connectionId });
  }
}
