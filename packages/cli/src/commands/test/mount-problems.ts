import { namespaceProblems, type PluginProblem } from '@gateway/sdk';
import { jsonSchemaProblems } from '@gateway/sdk/kernel';
import { isRecord } from '../../project/read-package-json.js';

/**
 * What the gateway would refuse when mounting `definition` under its id (as `gateway dev` and
 * `gateway register` do), beyond the problems `validatePlugin()` found (`definitionProblems`): a
 * tool path outside the namespace, and an input or output schema JSON Schema cannot express.
 * Checked with the sdk functions the server mounts with, on whatever part of the definition is
 * sound, so one run reports every problem of every tool; a field already reported is not
 * reported again.
 *
 * @example
 * mountProblems(definition, validatePlugin(definition));
 */
export function mountProblems(
  definition: unknown,
  definitionProblems: readonly PluginProblem[],
): PluginProblem[] {
  if (!isRecord(definition)) return [];
  const reported = new Set(definitionProblems.map((p) => `${p.tool ?? ''}\u0000${p.field}`));
  const fresh = (problem: PluginProblem) =>
    !reported.has(`${problem.tool ?? ''}\u0000${problem.field}`);
  const problems: PluginProblem[] = [];

  const { id } = definition;
  if (typeof id === 'string' && !reported.has('\u0000id')) {
    // Tools without a usable path are reported by validatePlugin() already.
    const tools = (Array.isArray(definition.tools) ? (definition.tools as unknown[]) : [])
      .map((tool) => (isRecord(tool) ? tool.path : undefined))
      .filter((path): path is string => typeof path === 'string' && path !== '')
      .map((path) => ({ path }));
    problems.push(...namespaceProblems({ id, tools }).filter(fresh));
  }
  problems.push(...jsonSchemaProblems(definition).filter(fresh));
  return problems;
}

/** The ids of the providers `definition` declares, whatever else is wrong with it. */
export function declaredProviders(definition: unknown): string[] {
  const providers = isRecord(definition) ? definition.authProviders : undefined;
  if (!Array.isArray(providers)) return [];
  return providers
    .map((provider: unknown) => (isRecord(provider) ? provider.id : undefined))
    .filter((id): id is string => typeof id === 'string');
}
