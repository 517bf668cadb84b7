import { expect } from 'vitest';
import { findApproval } from '../../src/approvals/index.js';
import { insertPendingApproval } from '../../src/approvals/store.js';
import { createConnection, idOf, listsTarget, text } from './fixture-kit.js';
import type { Fixture, MatrixWorld } from './matrix-types.js';

async function ownerConnectionIds(world: MatrixWorld): Promise<string> {
  return text(await world.call('GET', `/api/connections?userId=${world.owner.id}`));
}

async function createEndpoint(world: MatrixWorld) {
  const body = { userId: world.owner.id, name: world.unique('endpoint') };
  return idOf(await world.call('POST', '/api/connections/mcp-endpoints', body));
}

/** Records a finished tool call of user A; its id. */
async function ownerExecution(world: MatrixWorld): Promise<string> {
  const id = crypto.randomUUID();
  world.gw.services.executions.write({
    id,
    userId: world.owner.id,
    toolPath: 'notes.notes.list',
    startedAt: new Date(),
    arguments: { limit: 5 },
    outcome: 'ok',
    durationMs: 3,
  });
  await world.gw.services.executions.flush();
  return id;
}

async function pendingApproval(world: MatrixWorld) {
  const now = new Date();
  const approval = await insertPendingApproval(world.gw.services.database.db, {
    id: crypto.randomUUID(),
    executionId: crypto.randomUUID(),
    userId: world.owner.id,
    toolPath: 'notes.notes.create',
    message: 'Create a note?',
    args: { text: 'hello' },
    createdAt: now,
    expiresAt: new Date(now.getTime() + 600_000),
  });
  return approval.id;
}

/**
 * Fixtures of the routes over one user's data: connections, MCP endpoints, tool status,
 * executions and approvals, and the team connections everyone shares.
 */
export const userDataFixtures: Record<string, Fixture> = {
  'POST /api/connections': {
    scope: 'user',
    success: 201,
    async prepare(world) {
      const secret = world.secret();
      return {
        path: '/api/connections',
        body: {
          userId: world.owner.id,
          toolId: 'github',
          instanceName: world.unique('Work'),
          secret,
        },
        check: (body) =>
          expect(body).toMatchObject({ maskedSecret: `••••••••${secret.slice(-4)}` }),
      };
    },
  },
  'GET /api/connections': {
    scope: 'user',
    success: 200,
    async prepare(world) {
      const { id } = await createConnection(world);
      return {
        path: '/api/connections',
        query: { userId: world.owner.id },
        targetId: id,
        check: listsTarget(id),
      };
    },
  },
  'DELETE /api/connections/:id': {
    scope: 'user',
    success: 200,
    async prepare(world) {
      const { id } = await createConnection(world);
      return {
        path: `/api/connections/${id}`,
        query: { userId: world.owner.id },
        targetId: id,
        intact: async () => (await ownerConnectionIds(world)).includes(id),
        check: (body) => expect(body).toEqual({ deleted: [id] }),
      };
    },
  },
  'POST /api/connections/:id/decrypt': {
    scope: 'resource',
    success: 200,
    async prepare(world) {
      const { id, secret } = await createConnection(world);
      return {
        path: `/api/connections/${id}/decrypt`,
        targetId: id,
        intact: async () => (await ownerConnectionIds(world)).includes(id),
        check: (body) => expect(body).toEqual({ id, secret }),
      };
    },
  },
  'POST /api/connections/mcp-endpoints': {
    scope: 'user',
    success: 201,
    async prepare(world) {
      return {
        path: '/api/connections/mcp-endpoints',
        body: { userId: world.owner.id, name: world.unique('endpoint') },
        check: (body) => expect(body).toMatchObject({ token: expect.stringMatching(/^gw_mcp_/) }),
      };
    },
  },
  'GET /api/connections/mcp-endpoints': {
    scope: 'user',
    success: 200,
    async prepare(world) {
      const id = await createEndpoint(world);
      return {
        path: '/api/connections/mcp-endpoints',
        query: { userId: world.owner.id },
        targetId: id,
        check: listsTarget(id),
      };
    },
  },
  'POST /api/connections/mcp-endpoints/preview': {
    scope: 'user',
    success: 200,
    async prepare(world) {
      return {
        path: '/api/connections/mcp-endpoints/preview',
        body: { userId: world.owner.id, tools: ['notes.**', 'nothing.yet'] },
        check: (body) =>
          expect(body).toMatchObject({
            patterns: [
              { pattern: 'notes.**', problem: null },
              { pattern: 'nothing.yet', problem: null, matches: 0 },
            ],
          }),
      };
    },
  },
  'PATCH /api/connections/mcp-endpoints/:id': {
    scope: 'user',
    success: 200,
    async prepare(world) {
      const id = await createEndpoint(world);
      const listed = async () =>
        text(await world.call('GET', `/api/connections/mcp-endpoints?userId=${world.owner.id}`));
      return {
        path: `/api/connections/mcp-endpoints/${id}`,
        body: { userId: world.owner.id, tools: ['notes.notes.list'], mode: 'discovery' },
        targetId: id,
        intact: async () => !(await listed()).includes('notes.notes.list'),
        check: (body) =>
          expect(body).toMatchObject({
            endpoint: { id, tools: ['notes.notes.list'], mode: 'discovery' },
          }),
      };
    },
  },
  'DELETE /api/connections/mcp-endpoints/:id': {
    scope: 'user',
    success: 200,
    async prepare(world) {
      const id = await createEndpoint(world);
      const listed = async () =>
        text(await world.call('GET', `/api/connections/mcp-endpoints?userId=${world.owner.id}`));
      return {
        path: `/api/connections/mcp-endpoints/${id}`,
        query: { userId: world.owner.id },
        targetId: id,
        intact: async () => (await listed()).includes(id),
        check: (body) => expect(body).toEqual({ deleted: [id] }),
      };
    },
  },
  'POST /api/team/connections': {
    scope: 'global',
    success: 201,
    async prepare(world) {
      return {
        path: '/api/team/connections',
        body: { toolId: 'forecast', instanceName: world.unique('Team'), secret: world.secret() },
      };
    },
  },
  'GET /api/team/connections': {
    scope: 'global',
    success: 200,
    async prepare(world) {
      const body = {
        toolId: 'forecast',
        instanceName: world.unique('Team'),
        secret: world.secret(),
      };
      const id = idOf(await world.call('POST', '/api/team/connections', body, world.admin));
      return {
        path: '/api/team/connections',
        targetId: id,
        check: (answer, variant) => {
          expect(text(answer)).toContain(id);
          // Who stored it, and even its masked form, is for admins.
          const seesMask = variant === 'admin' || variant === 'service';
          expect(text(answer).includes('maskedSecret'), `${variant} sees maskedSecret`).toBe(
            seesMask,
          );
        },
      };
    },
  },
  'DELETE /api/team/connections/:id': {
    scope: 'global',
    success: 200,
    async prepare(world) {
      const body = {
        toolId: 'forecast',
        instanceName: world.unique('Team'),
        secret: world.secret(),
      };
      const id = idOf(await world.call('POST', '/api/team/connections', body, world.admin));
      return {
        path: `/api/team/connections/${id}`,
        intact: async () => text(await world.call('GET', '/api/team/connections')).includes(id),
      };
    },
  },
  'GET /api/tools/status': {
    scope: 'user',
    success: 200,
    async prepare(world) {
      return {
        path: '/api/tools/status',
        query: { userId: world.owner.id },
        check: (body, variant) => {
          if (variant !== 'other user, own id') {
            expect(body).toMatchObject({ userId: world.owner.id });
          }
        },
      };
    },
  },
  'GET /api/executions': {
    scope: 'user',
    success: 200,
    async prepare(world) {
      const id = crypto.randomUUID();
      world.gw.services.executions.write({
        id,
        userId: world.owner.id,
        toolPath: 'notes.notes.list',
        startedAt: new Date(),
        arguments: { limit: 5 },
        outcome: 'ok',
        durationMs: 3,
      });
      await world.gw.services.executions.flush();
      return {
        path: '/api/executions',
        query: { userId: world.owner.id },
        targetId: id,
        check: listsTarget(id),
      };
    },
  },
  'GET /api/executions/:id': {
    scope: 'resource',
    success: 200,
    async prepare(world) {
      const id = await ownerExecution(world);
      return { path: `/api/executions/${id}`, targetId: id, check: listsTarget(id) };
    },
  },
  'GET /api/executions/export': {
    scope: 'global',
    success: 200,
    async prepare(world) {
      const id = await ownerExecution(world);
      return {
        path: '/api/executions/export',
        query: { userId: world.owner.id, format: 'jsonl' },
        check: (body) => expect(String(body)).toContain(id),
      };
    },
  },
  'GET /api/explain': {
    scope: 'user',
    success: 200,
    async prepare(world) {
      return {
        path: '/api/explain',
        query: { userId: world.owner.id, tool: 'notes.notes.list' },
        check: (body, variant) => {
          if (variant !== 'other user, own id') {
            expect(body).toMatchObject({ subject: { id: world.owner.id } });
          }
        },
      };
    },
  },
  'GET /api/approvals': {
    scope: 'user',
    success: 200,
    async prepare(world) {
      const id = await pendingApproval(world);
      return {
        path: '/api/approvals',
        query: { userId: world.owner.id },
        targetId: id,
        check: listsTarget(id),
      };
    },
  },
  'POST /api/approvals/:id': {
    scope: 'resource',
    success: 200,
    async prepare(world) {
      const id = await pendingApproval(world);
      const { db } = world.gw.services.database;
      return {
        path: `/api/approvals/${id}`,
        body: { decision: 'deny' },
        targetId: id,
        intact: async () => (await findApproval(db, id))?.status === 'pending',
        check: (body) => expect(body).toMatchObject({ approval: { id, status: 'denied' } }),
      };
    },
  },
};
