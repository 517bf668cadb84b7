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
      looksLikeProviderId(provider)
        ? `Plugin "${plugin}" asked for a credential of "${provider}", which it does not declare: add { id: "${provider}", ... } to authProviders in definePlugin()`
        : // Not an id a plugin could declare: perhaps a value passed by mistake, so not echoed.
          `Plugin "${plugin}" asked for a credential with a provider id that is not valid (ids are up to 64 of a-z 0-9 _ -, starting with a letter): pass the id of a provider declared in authProviders in definePlugin()`,
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

/** Whether `value` has the shape of a provider id, short enough to be one rather than a secret. */
function looksLikeProviderId(value: string): boolean {
  return value.length <= 64 && /^[a-z][a-z0-9_-]*$/.test(value);
}
