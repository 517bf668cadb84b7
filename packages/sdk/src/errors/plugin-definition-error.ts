import { GatewayError, hasMarker } from './gateway-error.js';

const marker = Symbol.for('gateway.error.PluginDefinitionError');

/** One problem found in a plugin definition. */
export interface PluginProblem {
  /** The plugin's id (or `<unnamed>` when the id itself is missing). */
  plugin: string;
  /** The tool's path (or index, when the path is missing); absent for plugin-level problems. */
  tool?: string;
  /** The field at fault, e.g. `name` or `authProviders[1].id`. */
  field: string;
  message: string;
}

/** Formats a problem as one line: `plugin <id>, tool <path>, field <f>: <message>`. */
export function formatProblem(problem: PluginProblem): string {
  const tool = problem.tool === undefined ? '' : `, tool ${problem.tool}`;
  return `plugin ${problem.plugin}${tool}, field ${problem.field}: ${problem.message}`;
}

/**
 * Thrown by `definePlugin()` when the definition is invalid. Lists every problem at once, each
 * naming the plugin, tool and field.
 */
export class PluginDefinitionError extends GatewayError {
  readonly [marker] = true;
  readonly problems: readonly PluginProblem[];
  /**
   * The definition refused, when `definePlugin()` threw this: `gateway test` checks the rest of
   * it (namespace, JSON Schemas, providers) to report every problem in one run. Not enumerable,
   * so logging the error does not print the whole plugin.
   */
  declare readonly definition?: unknown;

  constructor(problems: readonly PluginProblem[], definition?: unknown) {
    const count = problems.length === 1 ? '1 problem' : `${problems.length} problems`;
    super(
      `Invalid plugin definition (${count}):\n${problems.map((p) => `  - ${formatProblem(p)}`).join('\n')}`,
    );
    this.name = 'PluginDefinitionError';
    this.problems = problems;
    if (definition !== undefined) {
      Object.defineProperty(this, 'definition', { value: definition, enumerable: false });
    }
  }

  /** Whether `error` is a PluginDefinitionError from any copy of the sdk. */
  static override isInstance(error: unknown): error is PluginDefinitionError {
    return hasMarker(error, marker);
  }
}
