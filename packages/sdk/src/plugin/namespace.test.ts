import { describe, expect, it } from 'vitest';
import { namespaceProblems, toolPathsOutsideNamespace } from './namespace.js';

const plugin = (id: string, ...paths: string[]) => ({ id, tools: paths.map((path) => ({ path })) });

describe('the namespace rule', () => {
  it('names the tool paths that do not start with the namespace and a dot', () => {
    const tools = plugin('my_tools', 'my_tools.math.add', 'other.math.add', 'my_toolsx.a.b');
    expect(toolPathsOutsideNamespace(tools, 'my_tools')).toEqual([
      'other.math.add',
      'my_toolsx.a.b',
    ]);
    expect(toolPathsOutsideNamespace(tools, 'other')).toEqual([
      'my_tools.math.add',
      'my_toolsx.a.b',
    ]);
  });

  it('checks against the plugin id by default, as gateway dev and register do', () => {
    expect(namespaceProblems(plugin('my_tools', 'my_tools.math.add'))).toEqual([]);
    expect(namespaceProblems(plugin('my_tools', 'other.math.add'))).toEqual([
      {
        plugin: 'my_tools',
        tool: 'other.math.add',
        field: 'path',
        message:
          'must start with "my_tools." (the plugin id, which `gateway dev` and `gateway register` use as namespace), e.g. "my_tools.math.add"',
      },
    ]);
    expect(namespaceProblems(plugin('my_tools', 'crm.a.b'), 'crm')).toEqual([]);
  });

  it('refuses a namespace the gateway does not take', () => {
    expect(namespaceProblems(plugin('my-tools', 'my-tools.a.b'))).toEqual([
      {
        plugin: 'my-tools',
        field: 'id',
        message:
          'is the namespace its tools are registered under, so must be 1-64 of a-z, 0-9 and _ (underscore style), e.g. "my_tools"',
      },
    ]);
    expect(namespaceProblems(plugin('x', 'a.b.c'), 'a'.repeat(65))[0]?.field).toBe('namespace');
  });

  it('refuses the namespace the gateway keeps for its own tools, as gateway dev does (issue 34)', () => {
    expect(namespaceProblems(plugin('gateway', 'gateway.notes.list'))).toEqual([
      {
        plugin: 'gateway',
        field: 'id',
        message:
          'is the namespace its tools are registered under, and "gateway" is reserved for the gateway\'s own tools (gateway.search_tools, gateway.describe_tools, gateway.call_tool); choose another, e.g. "gateway_tools"',
      },
    ]);
    expect(namespaceProblems(plugin('notes', 'gateway.a.b'), 'gateway')[0]?.field).toBe(
      'namespace',
    );
  });
});
