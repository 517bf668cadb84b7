import { PluginDefinitionError } from '../errors/plugin-definition-error.js';
import type { Plugin, PluginDefinition } from './types.js';
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
export function definePlugin(definition: PluginDefinition): Plugin {
  const problems = validatePlugin(definition);
  if (problems.length > 0) throw new PluginDefinitionError(problems, definition);
  return Object.freeze({
    ...definition,
    authProviders: definition.authProviders ?? [],
    kind: 'gateway.plugin',
  });
}

/** Whether `value` is a plugin returned by `definePlugin()` (from any copy of the sdk). */
export function isPlugin(value: unknown): value is Plugin {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { kind?: unknown }).kind === 'gateway.plugin'
  );
}
