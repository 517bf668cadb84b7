import { describe, expect, it } from 'vitest';
import { json, notesPlugin, repoPlugin } from '#test/registry/test-plugins.js';
import { createTestGateway } from '#test/support/test-gateway.js';
import type { Preview } from './schemas.js';

async function gateway() {
  const gw = await createTestGateway({ plugins: [notesPlugin(), repoPlugin()] });
  gw.services.plugins.mount({ id: 'notes', namespace: 'notes', pluginId: 'notes' });
  gw.services.plugins.mount({ id: 'repos', namespace: 'repos', pluginId: 'repos' });
  return gw;
}

describe('POST /api/policy/preview', () => {
  it('matches tools with the policy matcher and reports invalid patterns without failing', async () => {
    const gw = await gateway();
    const admin = await gw.createUser({ admin: true });
    const res = await gw.request('POST', '/api/policy/preview', {
      as: admin,
      body: { patterns: ['notes.notes.*', 'repos..list', '**.list'] },
    });
    expect(res.status).toBe(200);
    const preview = await json<Preview>(res);
    expect(preview.totalTools).toBe(4);
    expect(preview.tools.map((tool) => tool.path)).toEqual([
      'notes.notes.create',
      'notes.notes.list',
      'repos.repos.list',
    ]);
    expect(preview.patterns).toEqual([
      { pattern: 'notes.notes.*', problem: null, matches: 2 },
      {
        pattern: 'repos..list',
        problem: expect.stringContaining('segment 2 is empty'),
        matches: 0,
      },
      { pattern: '**.list', problem: null, matches: 2 },
    ]);
  });

  it('matches nothing with no patterns', async () => {
    const gw = await gateway();
    const res = await gw.request('POST', '/api/policy/preview', {
      as: 'service',
      body: { patterns: [] },
    });
    expect(await json<Preview>(res)).toEqual({ patterns: [], tools: [], totalTools: 4 });
  });

  it('is for admins only and changes nothing', async () => {
    const gw = await gateway();
    const member = await gw.createUser();
    const res = await gw.request('POST', '/api/policy/preview', {
      as: member,
      body: { patterns: ['**'] },
    });
    expect(res.status).toBe(403);
    expect((await gw.services.policy.getRole('member'))?.patterns).toEqual([]);
  });
});
