import { isPlugin, validatePlugin } from '@gateway/sdk';
import { createTestContext, runTool } from '@gateway/sdk/testing';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import plugin, { GOOGLE_CLOUD_SCOPES } from './index.js';
import { startFakeUpstream } from './testing/fake-upstream.js';

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('cloud plugin', () => {
  it('is a valid, read-only plugin whose tools live under cloud.', () => {
    expect(isPlugin(plugin)).toBe(true);
    expect(validatePlugin(plugin)).toEqual([]);
    expect(plugin.tools.map((tool) => tool.path)).toEqual([
      'cloud.projects.list',
      'cloud.storage.buckets_list',
    ]);
    for (const tool of plugin.tools) {
      expect(tool.destructive ?? false).toBe(false);
      expect(tool.authProvider).toBe('gcp');
    }
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

  it('asks Google for exactly the read-only cloud-platform scope and the OIDC scopes', () => {
    expect(GOOGLE_CLOUD_SCOPES).toEqual([
      'https://www.googleapis.com/auth/cloud-platform.read-only',
      'openid',
      'email',
      'profile',
    ]);
    expect(plugin.authProviders).toEqual([
      { id: 'gcp', type: 'oauth2', provider: 'gcp', scopes: GOOGLE_CLOUD_SCOPES },
    ]);
    const apiScopes = GOOGLE_CLOUD_SCOPES.filter((scope) => scope.startsWith('https://'));
    // One cloud-platform scope only: no per-API scope, no IAM scope, no read-write scope.
    expect(apiScopes).toEqual(['https://www.googleapis.com/auth/cloud-platform.read-only']);
    expect(GOOGLE_CLOUD_SCOPES.some((scope) => /iam|devstorage/.test(scope))).toBe(false);
  });

  it('reads GOOGLE_CLOUD_API_URL at call time when no baseUrl is given', async () => {
    const upstream = await startFakeUpstream(() => ({ body: { projects: [] } }));
    vi.stubEnv('GOOGLE_CLOUD_API_URL', upstream.url);
    const tool = plugin.tools.find((t) => t.path === 'cloud.projects.list');
    if (tool === undefined) throw new Error('cloud.projects.list is missing');

    await runTool(tool, {}, createTestContext({ tokens: { gcp: 'ya29.test' } }));

    expect(upstream.requests.map((request) => request.path)).toEqual(['/v3/projects:search']);
  });
});
