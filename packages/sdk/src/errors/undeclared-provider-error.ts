import { GatewayError, hasMarker } from './gateway-error.js';

const marker = Symbol.for('gateway.error.UndeclaredProviderError');

/**
 * Thrown by `ctx.auth.getToken(provider)` when the tool's plugin does not declare `provider` in
 * its `authProviders`. A tool gets credentials only for the providers its plugin declares, so a
 * plugin cannot reach the user's other connections; the gateway reads nothing for `provider`.
 * The fix is in the plugin: add the provider to `authProviders` in `definePlugin()`.
 *
 * @example
 * // In a plugin declaring only `weather`:
 * await ctx.auth.getToken('github');
 * // UndeclaredProviderError: Plugin "weather" asked for a credential of "github", which it does
 * // not declare: add { id: "github", ... } to authProviders in definePlugin()
 */
export class UndeclaredProviderError extends GatewayError {
  readonly [marker] = true;
  /** The id of the plugin whose tool asked. */
  readonly plugin: string;
  /** The provider id the tool asked for. */
  readonly provider: string;

  constructor(plugin: string, provider: string) {
    super(
      `Plugin "${plugin}" asked for a credential of "${provider}", which it does not declare: add { id: "${provider}", ... } to authProviders in definePlugin()`,
    );
    this.name = 'UndeclaredProviderError';
    this.plugin = plugin;
    this.provider = provider;
  }

  /** Whether `error` is an UndeclaredProviderError from any copy of the sdk. */
  static override isInstance(error: unknown): error is UndeclaredProviderError {
    return hasMarker(error, marker);
  }
}
