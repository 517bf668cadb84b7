import { definePlugin, formatProblem, isPlugin, type Plugin, validatePlugin } from '@gateway/sdk';
import { toolPathsOutsideNamespace } from '@gateway/sdk/kernel';
import { PluginCatalogError } from './catalog-error.js';
import { type MountedTool, type MountSource, mountedTool } from './mounted-tool.js';

export { PluginCatalogError, type PluginCatalogErrorReason } from './catalog-error.js';
export type { JsonSchema, MountedTool, MountSource } from './mounted-tool.js';

/**
 * Namespaces no plugin or upstream may mount: `gateway` holds the discovery meta-tools of MCP
 * endpoints in discovery mode, which must never be shadowed by (or mistaken for) a mounted tool.
 * The sdk's `namespaceProblems()` (so `gateway test`) refuses the same; plugin-catalog.test.ts
 * checks it does.
 */
export const RESERVED_NAMESPACES: ReadonlySet<string> = new Set(['gateway']);

/** Called after every change of the mounted tools, with the catalog's new version. */
export type CatalogListener = (version: number) => void;

/** A registration whose tools its mounter made (an upstream MCP server's), not a plugin's. */
export interface ToolSetSource {
  id: string;
  namespace: string;
}

interface Mount {
  source: MountSource | ToolSetSource;
  tools: readonly MountedTool[];
}

/**
 * The plugins a gateway has loaded, and the tools it serves: those of the plugins mounted by a
 * registration. Every change of the mounted tools bumps {@link PluginCatalog.version} and tells
 * the listeners, so caches (policy resolve) and MCP sessions can react.
 *
 * @example
 * const catalog = new PluginCatalog([weather]);
 * catalog.mount({ id: 'weather', namespace: 'weather', pluginId: 'weather' });
 * catalog.tool('weather.forecast.get')?.inputJsonSchema;
 */
export class PluginCatalog {
  readonly #plugins = new Map<string, Plugin>();
  readonly #mounts = new Map<string, Mount>();
  readonly #byPath = new Map<string, MountedTool>();
  readonly #listeners = new Set<CatalogListener>();
  #tools: readonly MountedTool[] = [];
  #version = 0;

  /**
   * @throws PluginCatalogError when a plugin is invalid or two plugins share an id.
   */
  constructor(plugins: readonly unknown[] = []) {
    for (const plugin of plugins) this.load(plugin);
  }

  /**
   * Loads a plugin (a `definePlugin()` result, or a plain object passing `validatePlugin()`),
   * without mounting it. Loading the very same plugin object twice is a no-op.
   *
   * @throws PluginCatalogError `invalid_plugin` listing every problem, or `duplicate_plugin`
   * when another plugin has the same id.
   */
  load(candidate: unknown): Plugin {
    const plugin = validated(candidate);
    const existing = this.#plugins.get(plugin.id);
    if (existing === plugin) return plugin;
    if (existing !== undefined) {
      throw new PluginCatalogError(
        'duplicate_plugin',
        `Two plugins have the id "${plugin.id}"; plugin ids must be unique`,
        [plugin.id],
      );
    }
    this.#assertOwnProvidersFree(plugin);
    this.#plugins.set(plugin.id, plugin);
    return plugin;
  }

  /**
   * A plugin's own OAuth provider id is one connection tool id for every plugin: another plugin
   * may declare the same id only with the same OAuth settings (the same provider, shared).
   */
  #assertOwnProvidersFree(plugin: Plugin): void {
    for (const entry of plugin.authProviders) {
      for (const other of this.#plugins.values()) {
        if (other.id === plugin.id) continue;
        const theirs = other.authProviders.find((candidate) => candidate.id === entry.id);
        if (theirs === undefined || (theirs.oauth === undefined && entry.oauth === undefined)) {
          continue;
        }
        if (JSON.stringify(theirs.oauth) !== JSON.stringify(entry.oauth)) {
          throw new PluginCatalogError(
            'duplicate_provider',
            `Plugin "${plugin.id}" declares auth provider "${entry.id}" differently from plugin "${other.id}"; an OAuth provider of a plugin has one definition on a gateway, so rename one of them`,
            [entry.id],
          );
        }
      }
    }
  }

  /**
   * Replaces a loaded plugin with a new version of itself (same id), re-mounting every
   * registration of it with the new tools. What `gateway dev` calls when a plugin's files change.
   * All or nothing: when the new version cannot be mounted, the old one stays.
   *
   * @throws PluginCatalogError `invalid_plugin`, `unknown_plugin` when no plugin has its id, or
   * what {@link PluginCatalog.check} throws for one of its registrations.
   */
  replace(candidate: unknown): Plugin {
    const plugin = validated(candidate);
    const previous = this.#plugins.get(plugin.id);
    if (previous === undefined) {
      throw new PluginCatalogError('unknown_plugin', `No plugin "${plugin.id}" is loaded`, [
        plugin.id,
      ]);
    }
    const remounts = [...this.#mounts.values()].flatMap((mount) => {
      const { source } = mount;
      if (!('pluginId' in source) || source.pluginId !== plugin.id) return [];
      assertInNamespace(plugin, source.namespace);
      const tools = plugin.tools.map((tool) => mountedTool(tool, plugin, source)).sort(byPath);
      return [{ source, tools, old: mount.tools }];
    });
    this.#assertOwnProvidersFree(plugin);
    this.#plugins.set(plugin.id, plugin);
    for (const { source, tools, old } of remounts) {
      for (const tool of old) this.#byPath.delete(tool.path);
      this.#mounts.set(source.id, { source, tools });
      for (const tool of tools) this.#byPath.set(tool.path, tool);
    }
    if (remounts.length > 0) this.#changed();
    return plugin;
  }

  /** The loaded plugin with this id. */
  plugin(id: string): Plugin | undefined {
    return this.#plugins.get(id);
  }

  /** Every loaded plugin, mounted or not, in load order. */
  plugins(): readonly Plugin[] {
    return [...this.#plugins.values()];
  }

  /** Bumped on every mount and unmount. */
  get version(): number {
    return this.#version;
  }

  /**
   * Checks that `source` can be mounted and returns the tools it would mount, without mounting
   * anything. {@link PluginCatalog.mount} runs the same checks.
   *
   * @throws PluginCatalogError `unknown_plugin`, `namespace_reserved` (`gateway`),
   * `duplicate_source`, `namespace_taken`, `path_outside_namespace` (details: the paths) or
   * `unrepresentable_schema`.
   */
  check(source: MountSource): readonly MountedTool[] {
    const plugin = this.#plugins.get(source.pluginId);
    if (plugin === undefined) {
      throw new PluginCatalogError('unknown_plugin', `No plugin "${source.pluginId}" is loaded`, [
        source.pluginId,
      ]);
    }
    this.#assertFree(source);
    assertInNamespace(plugin, source.namespace);
    return plugin.tools.map((tool) => mountedTool(tool, plugin, source)).sort(byPath);
  }

  #assertFree(source: ToolSetSource): void {
    if (RESERVED_NAMESPACES.has(source.namespace)) {
      throw new PluginCatalogError(
        'namespace_reserved',
        `The namespace "${source.namespace}" is reserved for the gateway's own tools (gateway.search_tools, gateway.describe_tools, gateway.call_tool); choose another`,
        [source.id],
      );
    }
    if (this.#mounts.has(source.id)) {
      throw new PluginCatalogError(
        'duplicate_source',
        `A source "${source.id}" is already mounted`,
        [source.id],
      );
    }
    for (const mount of this.#mounts.values()) {
      if (mount.source.namespace === source.namespace) {
        throw new PluginCatalogError(
          'namespace_taken',
          `The namespace "${source.namespace}" is already mounted by source "${mount.source.id}"`,
          [mount.source.id],
        );
      }
    }
  }

  /**
   * Mounts tools made elsewhere (an upstream MCP server's) under `source.namespace`, or replaces
   * the tools of that registration when it is mounted already (a refreshed tool list), and tells
   * the listeners.
   *
   * @throws PluginCatalogError `duplicate_source` (another kind of source has the id),
   * `namespace_reserved`, `namespace_taken` or `path_outside_namespace`; nothing changes then.
   */
  mountTools(source: ToolSetSource, tools: readonly MountedTool[]): readonly MountedTool[] {
    const existing = this.#mounts.get(source.id);
    if (existing === undefined || 'pluginId' in existing.source) this.#assertFree(source);
    else if (existing.source.namespace !== source.namespace) {
      throw new PluginCatalogError(
        'namespace_taken',
        `Source "${source.id}" is mounted under "${existing.source.namespace}"`,
        [source.id],
      );
    }
    const prefix = `${source.namespace}.`;
    const outside = tools.filter((tool) => !tool.path.startsWith(prefix)).map((t) => t.path);
    if (outside.length > 0) {
      throw new PluginCatalogError(
        'path_outside_namespace',
        `Every tool path must start with "${prefix}"; these do not: ${outside.join(', ')}`,
        outside,
      );
    }
    const sorted = [...tools].sort(byPath);
    for (const tool of existing?.tools ?? []) this.#byPath.delete(tool.path);
    this.#mounts.set(source.id, {
      source: { id: source.id, namespace: source.namespace },
      tools: sorted,
    });
    for (const tool of sorted) this.#byPath.set(tool.path, tool);
    this.#changed();
    return sorted;
  }

  /**
   * Mounts a loaded plugin under `source.namespace` and tells the listeners. Returns the
   * mounted tools, sorted by path.
   *
   * @throws PluginCatalogError as {@link PluginCatalog.check} does; nothing changes then.
   */
  mount(source: MountSource): readonly MountedTool[] {
    const tools = this.check(source);
    this.#mounts.set(source.id, { source: { ...source }, tools });
    for (const tool of tools) this.#byPath.set(tool.path, tool);
    this.#changed();
    return tools;
  }

  /** Unmounts a registration's tools; returns whether it was mounted. */
  unmount(sourceId: string): boolean {
    const mount = this.#mounts.get(sourceId);
    if (mount === undefined) return false;
    this.#mounts.delete(sourceId);
    for (const tool of mount.tools) this.#byPath.delete(tool.path);
    this.#changed();
    return true;
  }

  /** Whether a registration is mounted. */
  isMounted(sourceId: string): boolean {
    return this.#mounts.has(sourceId);
  }

  /** The paths a mounted registration serves (empty when it is not mounted). */
  pathsOf(sourceId: string): string[] {
    return this.#mounts.get(sourceId)?.tools.map((tool) => tool.path) ?? [];
  }

  /** Every mounted tool, sorted by path. The array is shared and frozen: do not copy per request. */
  tools(): readonly MountedTool[] {
    return this.#tools;
  }

  /** The mounted tool at `path`. */
  tool(path: string): MountedTool | undefined {
    return this.#byPath.get(path);
  }

  /**
   * Calls `listener` after every change of the mounted tools.
   *
   * @returns a function that removes the listener.
   */
  onChange(listener: CatalogListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #changed(): void {
    this.#tools = Object.freeze([...this.#byPath.values()].sort(byPath));
    this.#version += 1;
    for (const listener of this.#listeners) listener(this.#version);
  }
}

// Code-unit order, not locale order: the same on every machine.
function byPath(a: { path: string }, b: { path: string }): number {
  return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
}

/** The plugin `candidate` is, once `validatePlugin()` accepts it. */
function validated(candidate: unknown): Plugin {
  const problems = validatePlugin(candidate);
  if (problems.length > 0) {
    const lines = problems.map(formatProblem);
    throw new PluginCatalogError(
      'invalid_plugin',
      `Invalid plugin:\n  - ${lines.join('\n  - ')}`,
      lines,
    );
  }
  // validatePlugin accepted it, so definePlugin cannot throw; it adds the plugin marker.
  return isPlugin(candidate)
    ? candidate
    : definePlugin(candidate as Parameters<typeof definePlugin>[0]);
}

/** Checks every tool path of `plugin` starts with `<namespace>.`. */
function assertInNamespace(plugin: Plugin, namespace: string): void {
  // The sdk's rule, so `gateway test` refuses what this refuses.
  const outside = toolPathsOutsideNamespace(plugin, namespace);
  if (outside.length > 0) {
    throw new PluginCatalogError(
      'path_outside_namespace',
      `Every tool path must start with "${namespace}."; these do not: ${outside.join(', ')}`,
      outside,
    );
  }
}
