/**
 * Discovery search (issue 33): ranking, normalisation and limits, and the property that a search or
 * a description never answers a tool outside the caller's role and the endpoint's toolset.
 */
import { definePlugin, defineTool } from '@gateway/sdk';
import { compilePatterns } from '@gateway/sdk/kernel';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { endpointScopeOf } from '../../mcp-endpoints/index.js';
import type { MountedTool } from '../../registry/index.js';
import { PluginCatalog } from '../../registry/index.js';
import { ToolIndexCache } from '../tool-list.js';
import { answerMetaTool, MAX_DESCRIBE_BYTES, SEARCH_TOOLS, terms } from './index.js';

const logger = { info() {}, warn() {}, error() {}, debug() {} };

function cache(): ToolIndexCache {
  return new ToolIndexCache({ toolName: (tool) => tool.path, logger: logger as never });
}

/** "Notes Notes List" for `notes.notes.list`: a valid Title Case name. */
function titleOf(path: string): string {
  return path
    .split('.')
    .map((part) => `${part.charAt(0).toUpperCase()}${part.slice(1)}`)
    .join(' ');
}

/** Mounted tools for `specs`, one plugin per namespace. */
function mounted(
  specs: { path: string; name?: string; description?: string; args?: string[] }[],
): readonly MountedTool[] {
  const byNamespace = new Map<string, typeof specs>();
  for (const spec of specs) {
    const namespace = spec.path.split('.')[0] ?? '';
    byNamespace.set(namespace, [...(byNamespace.get(namespace) ?? []), spec]);
  }
  const plugins = [...byNamespace].map(([namespace, tools]) =>
    definePlugin({
      id: namespace,
      name: namespace,
      description: namespace,
      tools: tools.map((spec) =>
        defineTool({
          path: spec.path,
          name: spec.name ?? titleOf(spec.path),
          description: spec.description ?? `Tool ${spec.path}.`,
          inputSchema: z.object(
            Object.fromEntries((spec.args ?? []).map((arg) => [arg, z.string().optional()])),
          ),
          handler: async () => ({}),
        }),
      ),
    }),
  );
  const catalog = new PluginCatalog(plugins);
  for (const plugin of plugins) {
    catalog.mount({ id: plugin.id, namespace: plugin.id, pluginId: plugin.id });
  }
  return catalog.tools();
}

function search(
  index: ReturnType<ToolIndexCache['get']>,
  query: string,
  limit = 10,
): { tools: { name: string; asksApproval: boolean }[]; total: number } {
  const outcome = answerMetaTool(index, {
    name: SEARCH_TOOLS,
    arguments: { query, limit },
  });
  if (!('result' in outcome)) throw new Error('search answered a call');
  return outcome.result.structuredContent as never;
}

const TOOLS = mounted([
  { path: 'notes.notes.create', name: 'Create Note', description: 'Creates a note.' },
  { path: 'notes.notes.list', name: 'List Notes', description: 'Lists notes.' },
  { path: 'notes.notes.get', name: 'Get Note', args: ['noteId'] },
  { path: 'crm.contacts.create', name: 'Create Contact', description: 'Adds a contact.' },
  { path: 'crm.notes.attach', name: 'Attach Note', description: 'Attaches a note. Café.' },
  { path: 'github.repositories.list', name: 'List Repositories', args: ['owner_login'] },
]);

describe('terms', () => {
  it('splits paths, snake_case and camelCase, folds case and accents, and singularises', () => {
    expect(terms('notes.notes.listAll')).toEqual(['note', 'note', 'list', 'all']);
    expect(terms('owner_login HTTPServer')).toEqual(['owner', 'login', 'http', 'server']);
    expect(terms('Créer les Entrées')).toEqual(['creer', 'les', 'entree']);
    expect(terms('categories classes status')).toEqual(['category', 'class', 'status']);
  });
});

describe('gateway.search_tools', () => {
  const index = cache().get(TOOLS);

  it('ranks "create note" first at notes.notes.create, deterministically', () => {
    const first = search(index, 'create note');
    expect(first.tools[0]?.name).toBe('notes.notes.create');
    expect(first.tools[0]?.asksApproval).toBe(false);
    expect(search(index, 'create note')).toEqual(first);
    // Every tool that shares a term matches; the total counts them.
    expect(first.total).toBe(5);
  });

  it('is case- and accent-insensitive and matches argument names and prefixes', () => {
    expect(search(index, 'CREATE NOTE')).toEqual(search(index, 'create note'));
    expect(search(index, 'cafe').tools.map((tool) => tool.name)).toEqual(['crm.notes.attach']);
    expect(search(index, 'note id').tools[0]?.name).toBe('notes.notes.get');
    expect(search(index, 'owner login').tools[0]?.name).toBe('github.repositories.list');
    expect(search(index, 'repo').tools.map((tool) => tool.name)).toEqual([
      'github.repositories.list',
    ]);
  });

  it('lists the first tools by name for an empty query, with the total', () => {
    expect(search(index, '   ', 2)).toEqual({
      tools: [
        expect.objectContaining({ name: 'crm.contacts.create' }),
        expect.objectContaining({ name: 'crm.notes.attach' }),
      ],
      total: 6,
    });
    expect(search(index, 'nothing-like-this')).toEqual({ tools: [], total: 0 });
  });

  it('refuses a limit above 50 and unknown arguments', () => {
    for (const args of [{ query: 'x', limit: 51 }, { query: 'x', extra: 1 }, {}]) {
      const outcome = answerMetaTool(index, { name: SEARCH_TOOLS, arguments: args });
      expect('result' in outcome && outcome.result.isError).toBe(true);
    }
  });
});

describe('gateway.describe_tools', () => {
  it('caps the answer in size: the rest are listed to ask for again', () => {
    const big = mounted(
      Array.from({ length: 12 }, (_, n) => ({
        path: `big.tools.t${n}`,
        description: 'x'.repeat(20_000),
      })),
    );
    const outcome = answerMetaTool(cache().get(big), {
      name: 'gateway.describe_tools',
      arguments: { names: big.map((tool) => tool.path) },
    });
    if (!('result' in outcome)) throw new Error('describe answered a call');
    const answer = outcome.result.structuredContent as {
      tools: unknown[];
      omitted: string[];
      notFound: string[];
    };
    expect(answer.tools.length).toBeGreaterThan(0);
    expect(answer.omitted.length).toBeGreaterThan(0);
    expect(answer.tools.length + answer.omitted.length).toBe(12);
    expect(JSON.stringify(answer.tools).length).toBeLessThanOrEqual(MAX_DESCRIBE_BYTES);
  });
});

describe('search and describe stay within the role and the toolset', () => {
  const SEGMENTS = ['notes', 'crm', 'list', 'create', 'get', 'admin', 'x'];
  const segment = fc.constantFrom(...SEGMENTS);
  const path = fc.array(segment, { minLength: 2, maxLength: 4 }).map((parts) => parts.join('.'));
  const pattern = fc
    .array(fc.oneof(segment, fc.constant('*'), fc.constant('**')), { minLength: 1, maxLength: 4 })
    .map((parts) => parts.join('.'));
  const query = fc.oneof(
    fc
      .array(fc.constantFrom(...SEGMENTS, 'tool', 'Créate', 'NOTES'), { maxLength: 4 })
      .map((w) => w.join(' ')),
    fc.string({ maxLength: 20 }),
  );

  it('never answers a tool outside role ∩ toolset (property)', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(path, { minLength: 1, maxLength: 25 }),
        fc.array(pattern, { maxLength: 4 }),
        fc.array(pattern, { maxLength: 3 }),
        query,
        fc.integer({ min: 1, max: 50 }),
        (paths, rolePatterns, toolset, text, limit) => {
          // Paths whose namespace is not its first segment cannot mount: keep the others.
          const tools = mounted(paths.map((p) => ({ path: p })));
          const role = compilePatterns(rolePatterns).filter(tools, (tool) => tool.path);
          const scope = endpointScopeOf({
            tools: toolset.length === 0 ? null : JSON.stringify(toolset),
            mode: 'discovery',
          });
          const allowed = new Set(
            role
              .filter((tool) => toolset.length === 0 || compilePatterns(toolset).matches(tool.path))
              .map((tool) => tool.path),
          );
          const index = cache().get(role, scope);
          const found = search(index, text, limit);
          for (const tool of found.tools) expect(allowed.has(tool.name)).toBe(true);
          expect(found.tools.length).toBeLessThanOrEqual(limit);
          expect(found.total).toBeLessThanOrEqual(allowed.size);
          expect(search(index, '', 50).total).toBe(allowed.size);

          const described = answerMetaTool(index, {
            name: 'gateway.describe_tools',
            arguments: { names: paths.slice(0, 20) },
          });
          if (!('result' in described)) throw new Error('describe answered a call');
          const answer = described.result.structuredContent as { tools: { name: string }[] };
          for (const tool of answer.tools) expect(allowed.has(tool.name)).toBe(true);
        },
      ),
      { numRuns: 200 },
    );
  });
});
