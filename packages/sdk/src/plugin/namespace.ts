import type { PluginProblem } from '../errors/plugin-definition-error.js';

/**
 * What a namespace may be made of: the prefix every tool path of a registered plugin starts
 * with, a-z, 0-9 and _ (and at most {@link NAMESPACE_MAX_LENGTH} characters). `gateway register`
 * and `gateway dev` use the plugin id unless told otherwise.
 */
export const NAMESPACE_PATTERN = /^[a-z0-9_]+$/;

/** The longest namespace the gateway takes. */
export const NAMESPACE_MAX_LENGTH = 64;

/**
 * Namespaces the gateway keeps for itself: `gateway` holds the discovery meta-tools
 * (`gateway.search_tools`, ...). The server refuses them too (a server test checks its own list
 * gives the same answers).
 */
export const RESERVED_NAMESPACES: ReadonlySet<string> = new Set(['gateway']);

/**
 * The tool paths of `plugin` that do not start with `<namespace>.`: those the gateway refuses
 * when the plugin is registered under `namespace`.
 *
 * @example
 * toolPathsOutsideNamespace({ tools: [{ path: 'other.math.add' }] }, 'my_tools'); // ['other.math.add']
 */
export function toolPathsOutsideNamespace(
  plugin: { readonly tools: readonly { readonly path: string }[] },
  namespace: string,
): string[] {
  const prefix = `${namespace}.`;
  return plugin.tools.filter((tool) => !tool.path.startsWith(prefix)).map((tool) => tool.path);
}

/**
 * What keeps `plugin` from being registered under `namespace` (default its id, as `gateway dev`
 * and `gateway register` do): a namespace the gateway does not take (malformed, or reserved like
 * `gateway`), and each tool path outside it. An empty array when it registers. `gateway test` reports these with the definition's own
 * problems.
 *
 * @example
 * namespaceProblems({ id: 'my_tools', tools: [{ path: 'other.math.add' }] });
 * // [{ plugin: 'my_tools', tool: 'other.math.add', field: 'path', message: 'must start with "my_tools." ...' }]
 */
export function namespaceProblems(
  plugin: { readonly id: string; readonly tools: readonly { readonly path: string }[] },
  namespace: string = plugin.id,
): PluginProblem[] {
  const isId = namespace === plugin.id;
  if (!NAMESPACE_PATTERN.test(namespace) || namespace.length > NAMESPACE_MAX_LENGTH) {
    return [
      {
        plugin: plugin.id,
        field: isId ? 'id' : 'namespace',
        message: `${isId ? 'is the namespace its tools are registered under, so ' : ''}must be 1-64 of a-z, 0-9 and _ (underscore style), e.g. "${suggest(namespace)}"`,
      },
    ];
  }
  if (RESERVED_NAMESPACES.has(namespace)) {
    return [
      {
        plugin: plugin.id,
        field: isId ? 'id' : 'namespace',
        message: `${isId ? 'is the namespace its tools are registered under, and ' : ''}"${namespace}" is reserved for the gateway's own tools (gateway.search_tools, gateway.describe_tools, gateway.call_tool); choose another, e.g. "${namespace}_tools"`,
      },
    ];
  }
  const under = isId
    ? 'the plugin id, which `gateway dev` and `gateway register` use as namespace'
    : 'the namespace';
  return toolPathsOutsideNamespace(plugin, namespace).map((path) => ({
    plugin: plugin.id,
    tool: path,
    field: 'path',
    message: `must start with "${namespace}." (${under}), e.g. "${namespace}.${path.split('.').slice(1).join('.')}"`,
  }));
}

function suggest(namespace: string): string {
  return (
    namespace
      .toLowerCase()
      .replace(/[^a-z0-9_]+/g, '_')
      .slice(0, NAMESPACE_MAX_LENGTH) || 'my_tools'
  );
}
