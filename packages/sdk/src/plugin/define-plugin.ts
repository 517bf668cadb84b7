import { PluginDefinitionError } from '../errors/plugin-definition-error.js';
import type { Tool } from '../tool/types.js';
import type { AuthProvider, Plugin, PluginDefinition } from './types.js';
import { validatePlugin } from './validate-plugin.js';

/**
 * Defines a plugin: a set of tools sharing auth providers. Validates the whole definition and
 * reports every problem at once.
 *
 * @throws PluginDefinitionError listing each problem with its plugin, tool and field.
 * @example
 * export default definePlugin({
 *   id: 'weather',
 *   name: 'Weather',
 *   description: 'Forecasts from the weather service.',
 *   authProviders: [{ id: 'weather', type: 'api_key', provider: 'weather', scopes: [] }],
 *   tools: [getForecast],
 * });
 */
export function definePlugin<const TProviders extends readonly AuthProvider[] = readonly []>(
  definition: PluginDefinition<TProviders>,
): Plugin {
  const problems = validatePlugin(definition);
  if (problems.length > 0) throw new PluginDefinitionError(problems, definition);
  return Object.freeze({
    ...definition,
    authProviders: definition.authProviders ?? [],
    // Each tool's providers were checked against the plugin's above (types) and here (values).
    tools: definition.tools as readonly Tool[],
    kind: 'gateway.plugin',
  });
}

/**
 * The plugin's `authProviders`, as given, with their ids kept as literal types: pass them to
 * `definePlugin()` and to {@link defineToolFor}, so `tsc` refuses an undeclared provider id.
 *
 * @example
 * export const authProviders = defineAuthProviders([
 *   { id: 'github', type: 'oauth2', provider: 'github', scopes: ['repo'] },
 * ]);
 */
export function defineAuthProviders<const TProviders extends readonly AuthProvider[]>(
  providers: TProviders,
): TProviders {
  return providers;
}

/** Whether `value` is a plugin returned by `definePlugin()` (from any copy of the sdk). */
export function isPlugin(value: unknown): value is Plugin {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { kind?: unknown }).kind === 'gateway.plugin'
  );
}
