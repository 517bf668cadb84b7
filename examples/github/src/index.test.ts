import { isPlugin, validatePlugin } from '@gateway/sdk';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import plugin, { GITHUB_SCOPES } from './index.js';

describe('github plugin', () => {
  it('is a valid plugin whose tools live under github.', () => {
    expect(isPlugin(plugin)).toBe(true);
    expect(validatePlugin(plugin)).toEqual([]);
    expect(plugin.tools.map((tool) => [tool.path, tool.destructive ?? false])).toEqual([
      ['github.repos.list', false],
      ['github.issues.create', true],
    ]);
  });

  it('describes every input field for AI clients, in schemas MCP can carry', () => {
    for (const tool of plugin.tools) {
      const input = z.toJSONSchema(tool.inputSchema, { io: 'input' });
      for (const [field, property] of Object.entries(input.properties ?? {})) {
        const description = typeof property === 'object' ? property.description : undefined;
        expect(description, `${tool.path} input field ${field}`).toBeTruthy();
      }
      const output = tool.outputSchema;
      if (output) expect(() => z.toJSONSchema(output, { io: 'output' })).not.toThrow();
    }
  });

  it('asks GitHub for the user profile and repositories only', () => {
    expect(GITHUB_SCOPES).toEqual(['read:user', 'repo']);
    expect(plugin.authProviders).toEqual([
      { id: 'github', type: 'oauth2', provider: 'github', scopes: ['read:user', 'repo'] },
    ]);
  });
});
