import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { PluginDefinitionError } from '../errors/plugin-definition-error.js';
import { defineTool } from '../tool/define-tool.js';
import { definePlugin } from './define-plugin.js';
import { isTitleCase, validatePlugin } from './validate-plugin.js';

const tool = (overrides: Record<string, unknown> = {}) => ({
  ...defineTool({
    path: 'demo.items.list',
    name: 'List Items',
    description: 'Lists items.',
    inputSchema: z.object({}),
    async handler() {
      return [];
    },
  }),
  ...overrides,
});

const plugin = (overrides: Record<string, unknown> = {}) => ({
  id: 'demo',
  name: 'Demo',
  description: 'A demo plugin.',
  authProviders: [{ id: 'demo_api', type: 'api_key', provider: 'demo', scopes: [] }],
  tools: [tool()],
  ...overrides,
});

describe('validatePlugin', () => {
  it('checks annotations: the three hints, booleans, and no read-only destructive tool', () => {
    expect(
      validatePlugin(
        plugin({
          tools: [
            tool({
              annotations: { readOnlyHint: false, idempotentHint: true, openWorldHint: false },
            }),
          ],
        }),
      ),
    ).toEqual([]);
    const problems = validatePlugin(
      plugin({
        tools: [
          tool({ path: 'demo.a.b', annotations: { readOnlyHint: 'yes', destructiveHint: false } }),
          tool({ path: 'demo.c.d', destructive: true, annotations: { readOnlyHint: true } }),
          tool({ path: 'demo.e.f', annotations: [] }),
        ],
      }),
    );
    expect(problems).toEqual([
      {
        plugin: 'demo',
        tool: 'demo.a.b',
        field: 'annotations.readOnlyHint',
        message: 'must be true or false',
      },
      {
        plugin: 'demo',
        tool: 'demo.a.b',
        field: 'annotations.destructiveHint',
        message: "is set from the tool's `destructive`",
      },
      {
        plugin: 'demo',
        tool: 'demo.c.d',
        field: 'annotations.readOnlyHint',
        message: 'contradicts `destructive: true` (a destructive tool is not read-only)',
      },
      {
        plugin: 'demo',
        tool: 'demo.e.f',
        field: 'annotations',
        message: 'must be an object of true/false hints',
      },
    ]);
  });

  it('accepts a valid plugin', () => {
    expect(validatePlugin(plugin())).toEqual([]);
    expect(definePlugin(plugin() as never).kind).toBe('gateway.plugin');
  });

  it('takes an API key provider without scopes or provider (issue 34: scopes optional for keys)', () => {
    const keyOnly = plugin({
      authProviders: [
        { id: 'demo_api', type: 'api_key' },
        { id: 'other_api', type: 'api_key', send: { header: 'x-api-key' } },
      ],
    });
    expect(validatePlugin(keyOnly)).toEqual([]);
  });

  it('reports every problem at once, each naming plugin, tool and field', () => {
    const problems = validatePlugin(
      plugin({
        authProviders: [
          { id: 'dup', type: 'oauth2', provider: 'github', scopes: ['repo'] },
          { id: 'dup', type: 'saml', provider: '', scopes: 'repo' },
        ],
        tools: [
          tool({ path: 'demo', name: 'list items', description: '' }),
          tool({ path: 'demo.items.list', inputSchema: z.string(), authProvider: 'nope' }),
          tool({ path: 'demo.items.list' }),
          tool({ path: 'demo.Items.list', handler: 'x' }),
        ],
      }),
    );
    expect(problems).toEqual(
      expect.arrayContaining([
        { plugin: 'demo', field: 'authProviders[1].id', message: 'duplicate provider id "dup"' },
        {
          plugin: 'demo',
          field: 'authProviders[1].type',
          message: 'must be "oauth2" or "api_key"',
        },
        {
          plugin: 'demo',
          field: 'authProviders[1].provider',
          message: 'must be a non-empty string',
        },
        {
          plugin: 'demo',
          field: 'authProviders[1].scopes',
          message: 'must be an array of strings',
        },
        expect.objectContaining({ plugin: 'demo', tool: 'demo', field: 'path' }),
        {
          plugin: 'demo',
          tool: 'demo',
          field: 'name',
          message: 'must be in Title Case, e.g. "List Items"',
        },
        { plugin: 'demo', tool: 'demo', field: 'description', message: 'must not be empty' },
        expect.objectContaining({ tool: 'demo.items.list', field: 'inputSchema' }),
        expect.objectContaining({ tool: 'demo.items.list', field: 'authProvider' }),
        {
          plugin: 'demo',
          tool: 'demo.items.list',
          field: 'path',
          message: 'is used by another tool of this plugin',
        },
        expect.objectContaining({ tool: 'demo.Items.list', field: 'path' }),
        expect.objectContaining({ tool: 'demo.Items.list', field: 'handler' }),
      ]),
    );
    expect(problems).toHaveLength(12);
  });

  it('reports plugin-level problems', () => {
    expect(validatePlugin(plugin({ id: 'Bad Id', description: ' ', tools: [] }))).toEqual([
      expect.objectContaining({ plugin: 'Bad Id', field: 'id' }),
      { plugin: 'Bad Id', field: 'description', message: 'must not be empty' },
      { plugin: 'Bad Id', field: 'tools', message: 'must hold at least one tool' },
    ]);
    expect(validatePlugin(null)).toEqual([
      { plugin: '<unnamed>', field: '(plugin)', message: 'expected an object' },
    ]);
  });

  it('lists the declared providers when authProvider names none of them', () => {
    const [problem] = validatePlugin(plugin({ tools: [tool({ authProvider: 'github' })] }));
    expect(problem?.message).toBe('names no provider of this plugin (declared: demo_api)');
  });

  it('throws one PluginDefinitionError with a line per problem', () => {
    let caught: unknown;
    try {
      definePlugin(plugin({ id: '', tools: [tool({ name: 'x' })] }) as never);
    } catch (error) {
      caught = error;
    }
    expect(PluginDefinitionError.isInstance(caught)).toBe(true);
    const error = caught as PluginDefinitionError;
    expect(error.problems).toHaveLength(2);
    expect(error.message).toContain('Invalid plugin definition (2 problems)');
    expect(error.message).toContain(
      'plugin <unnamed>, tool demo.items.list, field name: must be in Title Case, e.g. "X"',
    );
  });
});

describe('isTitleCase', () => {
  it.each([
    ['List Items', true],
    ['Get Forecast for a City', true],
    ['Create GitHub Issue', true],
    ['Run 2 Jobs', true],
    ['list items', false],
    ['List items', false],
    ['of Mice and Men', false],
  ])('%s -> %s', (name, expected) => {
    expect(isTitleCase(name)).toBe(expected);
  });
});
