/**
 * Explain against real calls (issue 38): for every principal and tool of the matrix below, the
 * verdict of `GET /api/explain` equals what a real MCP call by that principal does: a tool
 * explain calls invisible is neither listed nor callable ("not found"), a visible one is listed
 * and runs; one that asks for approval waits for one; one without a credential fails for lack of
 * it.
 */

import { definePlugin, defineTool } from '@gateway/sdk';
import { ProtocolError } from '@modelcontextprotocol/client';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { connectV1, startMcpGateway } from '#test/mcp/mcp-test-kit.js';
import { forecastPlugin, notesPlugin } from '#test/registry/test-plugins.js';
import { createEndpoint } from '../mcp-endpoints/index.js';
import type { Explanation } from './schemas.js';

/**
 * Plugin tools whose handler never asks for the credential they name: a call runs without one, so
 * only explain's visibility and approval are compared for them (the test plugin's forecast tool).
 */
const NEVER_ASKS_FOR_TOKEN = new Set(['forecast.daily.get']);

const ARGS: Record<string, Record<string, unknown>> = {
  'demo.echo.say': { text: 'hi' },
  'demo.files.delete': { name: 'a.txt' },
  'demo.auth.whoami': {},
  'notes.notes.list': {},
  'notes.notes.create': { text: 'x' },
  'notes.admin.purge': {},
  'forecast.daily.get': { city: 'Oslo' },
  'nope.no.such_tool': {},
};

describe('explain equals a real call', () => {
  it('for every principal and tool of the matrix', { timeout: 120_000 }, async () => {
    const gw = await startMcpGateway({
      plugins: [notesPlugin(), forecastPlugin()],
      env: { GATEWAY_APPROVAL_TIMEOUT_SECONDS: '0.3' },
    });
    const { gateway } = gw;
    await gateway.services.policy.createRole({
      id: 'writers',
      name: 'Writers',
      patterns: ['notes.**', 'forecast.**'],
    });
    const admin = await gw.user({ admin: true });
    const reader = await gw.user({ roleId: 'reader' });
    const writer = await gw.user({ roleId: 'writers' });
    const member = await gw.user();
    const narrowed = await createEndpoint(gateway.services.database.db, {
      userId: admin.id,
      name: 'notes only',
      tools: ['notes.notes.*'],
    });
    if (!narrowed.ok) throw new Error(narrowed.problem);
    const adminAccount = await gw.serviceAccount(admin, 'admin');
    const readerAccount = await gw.serviceAccount(admin, 'reader');

    const principals: { name: string; token: string; query: Record<string, string> }[] = [
      { name: 'admin', token: admin.mcpToken, query: { userId: admin.id } },
      { name: 'reader', token: reader.mcpToken, query: { userId: reader.id } },
      { name: 'writer', token: writer.mcpToken, query: { userId: writer.id } },
      { name: 'member', token: member.mcpToken, query: { userId: member.id } },
      {
        name: 'admin through a notes-only endpoint',
        token: narrowed.endpoint.token,
        query: { userId: admin.id, endpointId: narrowed.endpoint.id },
      },
      {
        name: 'service account (admin role)',
        token: adminAccount.key,
        query: { serviceAccountId: adminAccount.id },
      },
      {
        name: 'service account (reader role)',
        token: readerAccount.key,
        query: { serviceAccountId: readerAccount.id },
      },
    ];
    const mismatches: string[] = [];
    let visibleSeen = 0;
    let askedSeen = 0;
    let missingCredentialSeen = 0;
    for (const principal of principals) {
      const { client } = await connectV1(gw.url, principal.token);
      const listed = new Set((await client.listTools()).tools.map((tool) => tool.name));
      for (const [tool, args] of Object.entries(ARGS)) {
        const response = await gateway.request(
          'GET',
          `/api/explain?${new URLSearchParams({ ...principal.query, tool })}`,
          { as: admin },
        );
        expect(response.status).toBe(200);
        const explained = (await response.json()) as Explanation;
        const where = `${principal.name} × ${tool}`;
        let notFound = false;
        let result: { isError?: boolean; content?: unknown } | undefined;
        try {
          result = (await client.callTool({ name: tool, arguments: args })) as typeof result;
        } catch (error) {
          if (!(error instanceof McpError || error instanceof ProtocolError)) throw error;
          notFound = /not found/i.test(error.message);
          if (!notFound) throw error;
        }
        if (explained.visible === notFound)
          mismatches.push(`${where}: visible ${explained.visible}, call found ${!notFound}`);
        if (explained.visible !== listed.has(tool))
          mismatches.push(`${where}: visible ${explained.visible}, listed ${listed.has(tool)}`);
        if (!explained.visible || result === undefined) continue;
        visibleSeen += 1;
        const text = JSON.stringify(result.content ?? '');
        const asks = explained.approval?.asks;
        const waited = /approv/i.test(text) && result.isError === true;
        // `tool`: the plugin's handler decides (the fixture's delete asks, the notes tools do not).
        if (asks !== 'tool' && (asks === 'yes') !== waited) {
          mismatches.push(`${where}: asks ${asks}, the call ${text}`);
        }
        if (waited) {
          askedSeen += 1;
          continue;
        }
        if (NEVER_ASKS_FOR_TOKEN.has(tool)) continue;
        if (explained.callable === (result.isError === true)) {
          mismatches.push(`${where}: callable ${explained.callable}, the call ${text}`);
        }
        if (explained.credential?.source === 'none' && explained.credential.required) {
          missingCredentialSeen += 1;
          expect(text, where).toMatch(/credential|connect/i);
        }
      }
    }
    expect(mismatches).toEqual([]);
    // The matrix covers each kind of verdict.
    expect(visibleSeen).toBeGreaterThan(10);
    expect(askedSeen).toBeGreaterThan(0);
    expect(missingCredentialSeen).toBeGreaterThan(0);
  });
});

describe('explain of a plugin tool declaring approval', () => {
  it('says the gateway asks, and the call waits for the approval', async () => {
    const memo = definePlugin({
      id: 'memo',
      name: 'Memo',
      description: 'Memos.',
      tools: [
        defineTool({
          path: 'memo.memos.delete',
          name: 'Delete Memo',
          description: 'Deletes a memo.',
          inputSchema: z.object({ id: z.string() }),
          destructive: true,
          approval: ({ id }) => `Delete memo ${id}?`,
          handler: () => ({ ok: true }),
        }),
      ],
    });
    const gw = await startMcpGateway({
      plugins: [memo],
      env: { GATEWAY_APPROVAL_TIMEOUT_SECONDS: '0.3' },
    });
    const admin = await gw.user({ admin: true });
    const response = await gw.gateway.request(
      'GET',
      `/api/explain?${new URLSearchParams({ userId: admin.id, tool: 'memo.memos.delete' })}`,
      { as: admin },
    );
    const explained = (await response.json()) as Explanation;
    expect(explained.approval).toEqual({
      asks: 'yes',
      why: expect.stringContaining('declares approval'),
    });
    const { client } = await connectV1(gw.url, admin.mcpToken);
    const result = await client.callTool({ name: 'memo.memos.delete', arguments: { id: 'm1' } });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toMatch(/approv/i);
  });
});

describe('explain for oneself', () => {
  it('tells a user nothing about a tool their role does not give, nor about others', async () => {
    const gw = await startMcpGateway({ plugins: [notesPlugin()] });
    const reader = await gw.user({ roleId: 'reader' });
    const other = await gw.user({ roleId: 'reader' });
    const ask = async (query: Record<string, string>) => {
      const response = await gw.gateway.request(
        'GET',
        `/api/explain?${new URLSearchParams(query)}`,
        { as: reader },
      );
      return { status: response.status, body: (await response.json()) as Explanation };
    };
    const own = await ask({ tool: 'demo.echo.say' });
    expect(own.status).toBe(200);
    expect(own.body).toMatchObject({
      visible: true,
      role: { id: 'reader', pattern: 'demo.echo.*' },
      credential: { required: false },
    });
    const hidden = await ask({ tool: 'notes.admin.purge' });
    const missing = await ask({ tool: 'notes.admin.nothing' });
    expect(hidden.status).toBe(200);
    // The same answer, but for the path: nothing says the first one exists.
    expect(JSON.stringify(hidden.body).replaceAll('purge', 'X')).toBe(
      JSON.stringify(missing.body).replaceAll('nothing', 'X'),
    );
    expect(hidden.body).toMatchObject({
      known: false,
      visible: false,
      approval: null,
      source: null,
    });
    expect((await ask({ tool: 'demo.echo.say', userId: other.id })).status).toBe(403);
    expect((await ask({ tool: 'demo.echo.say', serviceAccountId: 'sa-1' })).status).toBe(403);
    expect((await ask({ tool: "x' or 1=1 --" })).body).toMatchObject({ visible: false });
    expect((await ask({ tool: 'x'.repeat(301) })).status).toBe(400);
  });
});
