import { definePlugin, defineTool, namespaceProblems } from '@gateway/sdk';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { forecastPlugin, notesPlugin, strayPlugin } from '#test/registry/test-plugins.js';
import { PluginCatalog, PluginCatalogError, RESERVED_NAMESPACES } from './plugin-catalog.js';

const notesSource = { id: 'notes', namespace: 'notes', pluginId: 'notes' };

function catchError(run: () => unknown): PluginCatalogError {
  try {
    run();
  } catch (error) {
    if (error instanceof PluginCatalogError) return error;
    throw error;
  }
  throw new Error('expected a PluginCatalogError');
}

describe('PluginCatalog', () => {
  it('refuses the reserved gateway namespace to a plugin and to tools mounted from elsewhere (issue 33)', () => {
    const gatewayTools = definePlugin({
      id: 'gateway',
      name: 'Gateway',
      description: 'Shadows the meta-tools.',
      tools: [
        defineTool({
          path: 'gateway.search_tools',
          name: 'Search Tools',
          description: 'Not the real one.',
          inputSchema: z.object({}),
          handler: async () => ({}),
        }),
      ],
    });
    const catalog = new PluginCatalog([gatewayTools, notesPlugin()]);
    const error = catchError(() =>
      catalog.mount({ id: 'gateway', namespace: 'gateway', pluginId: 'gateway' }),
    );
    expect(error.reason).toBe('namespace_reserved');
    expect(error.message).toContain('reserved');
    const elsewhere = catchError(() =>
      catalog.mountTools({ id: 'up', namespace: 'gateway' }, catalog.check(notesSource)),
    );
    expect(elsewhere.reason).toBe('namespace_reserved');
    expect(catalog.tools()).toEqual([]);
  });

  it('reserves the namespaces gateway test refuses, so what it accepts mounts (issue 34)', () => {
    // `gateway test` checks a plugin with the sdk's namespaceProblems(); the catalog, its own list.
    for (const namespace of RESERVED_NAMESPACES) {
      const plugin = { id: namespace, tools: [{ path: `${namespace}.a.b` }] };
      expect(namespaceProblems(plugin)).toEqual([
        expect.objectContaining({ field: 'id', message: expect.stringContaining('reserved') }),
      ]);
    }
    expect(
      namespaceProblems({ id: 'gateway_tools', tools: [{ path: 'gateway_tools.a.b' }] }),
    ).toEqual([]);
    expect(RESERVED_NAMESPACES.has('gateway_tools')).toBe(false);
  });

  it('loads plugins without mounting them', () => {
    const catalog = new PluginCatalog([notesPlugin(), forecastPlugin()]);
    expect(catalog.plugins().map((plugin) => plugin.id)).toEqual(['notes', 'forecast']);
    expect(catalog.tools()).toEqual([]);
    expect(catalog.version).toBe(0);
  });

  it('refuses two plugins with one id, and accepts the same plugin object twice', () => {
    const notes = notesPlugin();
    expect(() => new PluginCatalog([notes, notes])).not.toThrow();
    const error = catchError(() => new PluginCatalog([notes, notesPlugin()]));
    expect(error.reason).toBe('duplicate_plugin');
    expect(error.message).toContain('"notes"');
  });

  it('refuses an invalid plugin, listing every problem', () => {
    const error = catchError(
      () => new PluginCatalog([{ id: 'Bad Id', name: '', description: '', tools: [] }]),
    );
    expect(error.reason).toBe('invalid_plugin');
    expect(error.details.length).toBeGreaterThanOrEqual(3);
    expect(error.message).toMatch(/field id/);
    expect(error.message).toMatch(/field tools/);
  });

  it('accepts a plain object plugin that passes validatePlugin', () => {
    const catalog = new PluginCatalog([
      {
        id: 'plain',
        name: 'Plain',
        description: 'Not made with definePlugin.',
        tools: [{ ...notesPlugin().tools[0], path: 'plain.notes.list' }],
      },
    ]);
    expect(catalog.plugin('plain')?.kind).toBe('gateway.plugin');
  });

  it('mounts a plugin: tools sorted by path, with JSON Schema made once', () => {
    const catalog = new PluginCatalog([notesPlugin()]);
    const mounted = catalog.mount(notesSource);
    expect(mounted).toHaveLength(3);
    expect(catalog.tools().map((tool) => tool.path)).toEqual([
      'notes.admin.purge',
      'notes.notes.create',
      'notes.notes.list',
    ]);
    const list = catalog.tool('notes.notes.list');
    expect(list).toMatchObject({
      path: 'notes.notes.list',
      name: 'List Notes',
      description: 'Lists notes.',
      destructive: false,
      pluginId: 'notes',
      sourceId: 'notes',
      namespace: 'notes',
      serviceAccountAllowed: true,
    });
    expect(list?.authProvider).toBeUndefined();
    // Input schema: what a caller sends, so a defaulted field is optional.
    expect(list?.inputJsonSchema).toMatchObject({
      type: 'object',
      properties: { limit: { type: 'integer', default: 20 } },
    });
    expect(list?.inputJsonSchema.required).toBeUndefined();
    expect(list?.outputJsonSchema).toMatchObject({ type: 'object', required: ['notes'] });
    expect(Object.isFrozen(list?.inputJsonSchema)).toBe(true);

    // Made at mount time and shared: reading returns the same objects, and mounting again
    // after an unmount reuses them instead of generating new ones.
    expect(catalog.tools()).toBe(catalog.tools());
    expect(catalog.tools().find((tool) => tool.path === 'notes.notes.list')).toBe(list);
    catalog.unmount('notes');
    catalog.mount(notesSource);
    expect(catalog.tool('notes.notes.list')?.inputJsonSchema).toBe(list?.inputJsonSchema);
    expect(catalog.tool('notes.notes.list')?.outputJsonSchema).toBe(list?.outputJsonSchema);
  });

  it('bumps the version and tells listeners on mount and unmount', () => {
    const catalog = new PluginCatalog([notesPlugin(), forecastPlugin()]);
    const seen: number[] = [];
    const stop = catalog.onChange((version) => seen.push(version));
    catalog.mount(notesSource);
    catalog.mount({ id: 'fc', namespace: 'forecast', pluginId: 'forecast' });
    expect(catalog.unmount('fc')).toBe(true);
    expect(catalog.unmount('fc')).toBe(false);
    stop();
    catalog.unmount('notes');
    expect(seen).toEqual([1, 2, 3]);
    expect(catalog.version).toBe(4);
    expect(catalog.tools()).toEqual([]);
  });

  it('replaces a plugin with a new version, re-mounting its registrations', () => {
    const catalog = new PluginCatalog([notesPlugin()]);
    catalog.mount(notesSource);
    const before = catalog.version;
    const next = definePlugin({
      ...notesPlugin(),
      tools: [notesPlugin().tools[0]!, { ...notesPlugin().tools[1]!, path: 'notes.notes.add' }],
    });
    catalog.replace(next);
    expect(catalog.plugin('notes')).toBe(next);
    expect(catalog.tools().map((tool) => tool.path)).toEqual([
      'notes.notes.add',
      'notes.notes.list',
    ]);
    expect(catalog.tool('notes.notes.create')).toBeUndefined();
    expect(catalog.version).toBe(before + 1);
  });

  it('keeps the old version when the new one cannot be mounted, or is unknown', () => {
    const catalog = new PluginCatalog([notesPlugin()]);
    catalog.mount(notesSource);
    const stray = definePlugin({
      ...notesPlugin(),
      tools: [{ ...notesPlugin().tools[0]!, path: 'elsewhere.notes.list' }],
    });
    expect(catchError(() => catalog.replace(stray)).reason).toBe('path_outside_namespace');
    expect(catalog.tools().map((tool) => tool.path)).toContain('notes.notes.create');
    expect(catchError(() => catalog.replace(forecastPlugin())).reason).toBe('unknown_plugin');
  });

  it('refuses a tool path outside the namespace, naming every such path, and changes nothing', () => {
    const catalog = new PluginCatalog([strayPlugin()]);
    const error = catchError(() =>
      catalog.mount({ id: 'stray', namespace: 'stray', pluginId: 'stray' }),
    );
    expect(error.reason).toBe('path_outside_namespace');
    expect(error.details).toEqual(['elsewhere.things.get', 'other.things.get']);
    expect(error.message).toContain('elsewhere.things.get, other.things.get');
    expect(catalog.tools()).toEqual([]);
    expect(catalog.version).toBe(0);
  });

  it('refuses an unknown plugin, a taken source id and a taken namespace', () => {
    const catalog = new PluginCatalog([notesPlugin()]);
    expect(catchError(() => catalog.mount({ ...notesSource, pluginId: 'nope' })).reason).toBe(
      'unknown_plugin',
    );
    catalog.mount(notesSource);
    expect(catchError(() => catalog.mount({ ...notesSource, namespace: 'x' })).reason).toBe(
      'duplicate_source',
    );
    expect(catchError(() => catalog.mount({ ...notesSource, id: 'notes2' })).reason).toBe(
      'namespace_taken',
    );
  });

  it('refuses a schema JSON Schema cannot express, naming the tool', () => {
    const catalog = new PluginCatalog([
      definePlugin({
        id: 'dates',
        name: 'Dates',
        description: 'Takes a Date.',
        tools: [
          defineTool({
            path: 'dates.day.get',
            name: 'Get Day',
            description: 'Takes a date object.',
            inputSchema: z.object({ when: z.date() }),
            handler: async () => ({}),
          }),
        ],
      }),
    ]);
    const error = catchError(() =>
      catalog.mount({ id: 'dates', namespace: 'dates', pluginId: 'dates' }),
    );
    expect(error.reason).toBe('unrepresentable_schema');
    expect(error.message).toContain('dates.day.get: inputSchema');
  });
});
