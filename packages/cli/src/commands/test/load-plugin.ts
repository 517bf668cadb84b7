import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  isPlugin,
  type Plugin,
  PluginDefinitionError,
  type PluginProblem,
  validatePlugin,
} from '@gateway/sdk';
import { CliError } from '../../cli-error.js';
import { pathExists } from '../../project/path-exists.js';
import { isRecord } from '../../project/read-package-json.js';
import { oneLine } from '../../report-error.js';

/** A loaded plugin and what is wrong with it. */
export interface LoadedPlugin {
  /** The plugin id, when the definition has one. */
  id: string | undefined;
  /** Paths of the plugin's tools (those that have one). */
  tools: string[];
  /** Every problem of the definition; empty when valid. */
  problems: PluginProblem[];
  /** The plugin, when valid. */
  plugin: Plugin | undefined;
  /**
   * What the entry exported, valid or not (for a definition `definePlugin()` refused, what it
   * was given), so `gateway test` can check the rest of it; undefined when that is unknown.
   */
  definition: unknown;
}

/**
 * Imports `entry` (TypeScript included, with the project's tsconfig) and validates its default
 * export. `definePlugin()` throws on an invalid definition while the module loads, so that error
 * is caught and its problems reported like any others.
 *
 * @throws CliError when the file cannot be loaded, or its default export is not a plugin.
 */
export async function loadPlugin(cwd: string, entry: string): Promise<LoadedPlugin> {
  const { tsImport } = await import('tsx/esm/api');
  const tsconfig = join(cwd, 'tsconfig.json');
  let module: { default?: unknown };
  try {
    module = await tsImport(pathToFileURL(join(cwd, entry)).href, {
      parentURL: pathToFileURL(join(cwd, 'package.json')).href,
      tsconfig: (await pathExists(tsconfig)) ? tsconfig : false,
    });
  } catch (error) {
    if (PluginDefinitionError.isInstance(error)) {
      const problems = [...error.problems];
      const { definition } = error;
      return {
        id: readId(definition) ?? problems[0]?.plugin,
        tools: readToolPaths(definition),
        problems,
        plugin: undefined,
        definition,
      };
    }
    const message = error instanceof Error ? error.message : String(error);
    throw new CliError(`Could not load ${entry}: ${oneLine(message)}`, { cause: error });
  }
  const definition = unwrapCommonJs(module.default);
  if (definition === undefined) {
    throw new CliError(
      `${entry} has no default export; end it with \`export default definePlugin({ ... })\``,
    );
  }
  // Validated again even when definePlugin() built it: it may come from another sdk version.
  const problems = validatePlugin(definition);
  if (problems.length === 0 && !isPlugin(definition)) {
    throw new CliError(
      `The default export of ${entry} is not a plugin; wrap it in \`definePlugin({ ... })\``,
    );
  }
  return {
    id: readId(definition),
    tools: readToolPaths(definition),
    problems,
    plugin: problems.length === 0 && isPlugin(definition) ? definition : undefined,
    definition,
  };
}

/**
 * A TypeScript file in a package without `"type": "module"` loads as CommonJS, and Node then
 * hands over `module.exports` whole: `{ __esModule: true, default: plugin }`.
 */
function unwrapCommonJs(value: unknown): unknown {
  return isRecord(value) && '__esModule' in value && 'default' in value ? value.default : value;
}

function readId(definition: unknown): string | undefined {
  const id = isRecord(definition) ? definition.id : undefined;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

function readToolPaths(definition: unknown): string[] {
  const tools = isRecord(definition) ? definition.tools : undefined;
  if (!Array.isArray(tools)) return [];
  return tools
    .map((tool: unknown) => (isRecord(tool) ? tool.path : undefined))
    .filter((path): path is string => typeof path === 'string' && path !== '');
}
