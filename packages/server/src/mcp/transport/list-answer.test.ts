/**
 * `tools/list` answered from the list's JSON, encoded once per list (issue 33, list-answer.ts): a
 * 2025 session's, a 2026-07-28 one and a sessionless 2025 one, over real HTTP: the answer means what the SDK's did, and a list cached for one
 * principal is never served to another who may see something else, across roles, endpoints and
 * every change that can alter a list, on one instance and across instances on PostgreSQL.
 */
import { compilePatterns } from '@gateway/sdk/kernel';
import type { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { sql } from 'kysely';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createPostgresTestDatabase, postgresTestUrl } from '#test/db/test-database.js';
import { emptyFixtureState } from '#test/mcp/fixture-plugin.js';
import {
  connectV1,
  type McpTestGateway,
  type McpTestUser,
  startMcpGateway,
} from '#test/mcp/mcp-test-kit.js';
import { openRawSession } from '#test/mcp/raw-session.js';
import { toolsetPlugins } from '#test/mcp/toolset-plugins.js';
import { rememberSecret } from '#test/support/known-secrets.js';
import { CALL_TOOL, DESCRIBE_TOOLS, SEARCH_TOOLS } from '../discovery/index.js';
import { listBytes } from './list-answer.js';

const pgUrl = postgresTestUrl();
const META = [CALL_TOOL, DESCRIBE_TOOLS, SEARCH_TOOLS];

const names = (tools: readonly { name: string }[]) => tools.map((tool) => tool.name).sort();

async function withRoles(gw: McpTestGateway) {
  const { policy } = gw.gateway.services;
  await policy.createRole({ id: 'writer', name: 'Writer', patterns: ['notes.**', 'crm.**'] });
  await policy.createRole({ id: 'noter', name: 'Noter', patterns: ['notes.**'] });
  return gw;
}

/** A new endpoint of `user`, through the API, with its token. */
async function endpoint(
  gw: McpTestGateway,
  user: McpTestUser,
  fields: { tools?: string[]; mode?: 'tools' | 'discovery' } = {},
): Promise<{ id: string; token: string }> {
  const response = await gw.gateway.request('POST', '/api/connections/mcp-endpoints', {
    as: 'service',
    body: { userId: user.id, name: `endpoint-${crypto.randomUUID().slice(0, 8)}`, ...fields },
  });
  expect(response.status).toBe(201);
  const created = (await response.json()) as { id: string; token: string };
  rememberSecret(created.token);
  return created;
}

/** The JSON-RPC message an answer carries, as JSON or as the one message of an event stream. */
async function messageOf(response: Response): Promise<Record<string, unknown>> {
  const text = await response.text();
  if (response.headers.get('content-type')?.startsWith('application/json')) {
    return JSON.parse(text);
  }
  const data = text.split('\n').find((line) => line.startsWith('data: ') && line.length > 6);
  return JSON.parse((data ?? '').slice(6));
}

const MODERN = '2026-07-28';
const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientInfo': { name: 'list-test', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

/** A `tools/list` outside a session: 2026-07-28, or 2025 without `Mcp-Session-Id`. */
async function listOutsideSession(
  url: string,
  token: string,
  era: 'modern' | 'legacy',
  extra: { params?: object; id?: string | number } = {},
): Promise<Response> {
  const modern = era === 'modern';
  return fetch(`${url}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': modern ? MODERN : '2025-11-25',
      ...(modern ? { 'mcp-method': 'tools/list' } : {}),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: extra.id ?? 1,
      method: 'tools/list',
      ...(extra.params !== undefined
        ? { params: extra.params }
        : modern
          ? { params: { _meta: ENVELOPE } }
          : {}),
    }),
  });
}

/** The names a `tools/list` outside a session answers. */
async function namesOutsideSession(url: string, token: string, era: 'modern' | 'legacy') {
  const message = await messageOf(await listOutsideSession(url, token, era));
  return names((message.result as { tools: { name: string }[] }).tools);
}

describe('a tools/list outside a session (2026-07-28, or 2025 sessionless)', () => {
  it("is answered from the list's bytes as the JSON the SDK answers", async () => {
    const gw = await withRoles(await startMcpGateway({ plugins: toolsetPlugins() }));
    const ada = await gw.user({ roleId: 'writer' });
    for (const era of ['modern', 'legacy'] as const) {
      const plain = await listOutsideSession(gw.url, ada.mcpToken, era, { id: 'list-1' });
      expect(plain.status).toBe(200);
      expect(plain.headers.get('content-type')).toBe('application/json');
      const direct = await messageOf(plain);
      expect(direct).toMatchObject({ jsonrpc: '2.0', id: 'list-1' });
      // Not the plain request (a progress token; a `_meta` on 2025): the SDK's server answers.
      const viaSdk = await messageOf(
        await listOutsideSession(gw.url, ada.mcpToken, era, {
          id: 9,
          params: { _meta: era === 'modern' ? { ...ENVELOPE, progressToken: 'p' } : {} },
        }),
      );
      expect(viaSdk).toMatchObject({ jsonrpc: '2.0', id: 9 });
      expect(direct.result).toEqual(viaSdk.result);
      expect(names((direct.result as { tools: { name: string }[] }).tools)).toHaveLength(7);
    }
    // The 2026-07-28 result carries what the SDK's codec adds: its type, cache hint and server.
    const modern = await messageOf(await listOutsideSession(gw.url, ada.mcpToken, 'modern'));
    expect(modern.result).toMatchObject({
      resultType: 'complete',
      ttlMs: 0,
      cacheScope: 'private',
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'gateway' } },
    });

    // A 2026-07-28 request the SDK refuses is still refused by it: no envelope.
    const refused = await listOutsideSession(gw.url, ada.mcpToken, 'modern', { params: {} });
    expect(refused.status).toBe(400);
    await refused.body?.cancel();
  });
});

describe("a session's tools/list", () => {
  it('is answered as the JSON the SDK answers, with the request id, from bytes encoded once', async () => {
    const gw = await withRoles(await startMcpGateway({ plugins: toolsetPlugins() }));
    const ada = await gw.user({ roleId: 'writer' });
    const { sessionId, post } = await openRawSession(gw.url, ada.mcpToken);

    const plain = await post({ jsonrpc: '2.0', id: 'list-1', method: 'tools/list' });
    expect(plain.status).toBe(200);
    expect(plain.headers.get('content-type')).toBe('application/json');
    expect(plain.headers.get('mcp-session-id')).toBe(sessionId);
    const direct = await messageOf(plain);
    expect(direct).toMatchObject({ jsonrpc: '2.0', id: 'list-1' });

    // A request with `_meta` is not the plain one: the SDK's transport answers it, with the
    // same headers (no `Cache-Control`: a JSON answer is not an event stream; issue 37).
    const sdkAnswer = await post({
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/list',
      params: { _meta: {} },
    });
    const headersOf = (response: Response) =>
      [...response.headers.keys()].filter((name) => name !== 'content-length');
    expect(headersOf(plain)).toEqual(headersOf(sdkAnswer));
    expect(plain.headers.get('cache-control')).toBeNull();
    const viaSdk = await messageOf(sdkAnswer);
    expect(viaSdk).toMatchObject({ jsonrpc: '2.0', id: 7 });
    expect(direct.result).toEqual(viaSdk.result);
    expect(names((direct.result as { tools: { name: string }[] }).tools)).toEqual([
      'crm.contacts.create',
      'crm.contacts.list',
      'crm.notes.attach',
      'notes.notes.create',
      'notes.notes.delete',
      'notes.notes.get',
      'notes.notes.list',
    ]);

    // Without the Accept the transport insists on, the transport refuses it as before.
    const refused = await fetch(`${gw.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${ada.mcpToken}`,
        'content-type': 'application/json',
        accept: 'application/json',
        'mcp-session-id': sessionId,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'tools/list' }),
    });
    expect(refused.status).toBe(406);
    await refused.body?.cancel();

    // The bytes of one shared list are encoded once and kept; a list made for one answer is not.
    const shared = Object.freeze([{ name: 'a.b.c', inputSchema: { type: 'object' as const } }]);
    expect(listBytes(shared)).toBe(listBytes(shared));
    const once = [{ name: 'a.b.c', inputSchema: { type: 'object' as const } }];
    expect(listBytes(once)).not.toBe(listBytes(once));
    expect(JSON.parse(new TextDecoder().decode(listBytes(shared)))).toEqual(shared);
  });

  it("never serves one principal's cached list to another who may see something else", async () => {
    const gw = await withRoles(await startMcpGateway({ plugins: toolsetPlugins() }));
    // crm is registered through the API near the end: a catalog change.
    gw.gateway.services.plugins.unmount('crm');
    const admin = await gw.user({ admin: true });
    const everything = names(
      (await (await connectV1(gw.url, admin.mcpToken)).client.listTools()).tools,
    );
    const ada = await gw.user({ roleId: 'writer' });
    const bob = await gw.user({ roleId: 'writer' });
    const cy = await gw.user({ roleId: 'noter' });
    const dee = await gw.user({ roleId: 'reader' });
    const roles: Record<string, string[]> = {
      writer: ['notes.**', 'crm.**'],
      noter: ['notes.**'],
      reader: ['demo.echo.*'],
    };
    const roleOf = new Map([
      [ada.id, 'writer'],
      [bob.id, 'writer'],
      [cy.id, 'noter'],
      [dee.id, 'reader'],
    ]);
    interface Served {
      who: McpTestUser;
      id: string;
      token: string;
      tools?: string[];
      mode?: 'discovery';
      client: V1Client;
    }
    const served: Served[] = [];
    const add = async (who: McpTestUser, fields: { tools?: string[]; mode?: 'discovery' }) => {
      const made = await endpoint(gw, who, fields);
      const { client } = await connectV1(gw.url, made.token);
      served.push({ who, id: made.id, token: made.token, ...fields, client });
    };
    for (const who of [ada, bob, cy, dee]) {
      await add(who, {});
      await add(who, { tools: ['notes.notes.list'] });
      await add(who, { tools: ['crm.**', 'demo.**'] });
      await add(who, { mode: 'discovery' });
    }
    await add(ada, { tools: ['notes.notes.list'] });

    /** What `entry` may see now, worked out from the catalog, the role and the endpoint alone. */
    const expected = (entry: Served, catalog: readonly string[]) => {
      if (entry.mode === 'discovery') return META;
      const role = compilePatterns(roles[roleOf.get(entry.who.id) ?? ''] ?? []);
      const toolset = entry.tools === undefined ? undefined : compilePatterns(entry.tools);
      return catalog.filter((name) => role.matches(name) && (toolset?.matches(name) ?? true));
    };
    const checkAll = async (catalog: readonly string[]) => {
      // Twice, in two orders, so each list is served from what the others left cached.
      for (const order of [served, [...served].reverse()]) {
        for (const entry of order) {
          const want = expected(entry, catalog);
          expect(names((await entry.client.listTools()).tools)).toEqual(want);
          // The same bytes answer the lists outside a session, only for whom they were resolved.
          expect(await namesOutsideSession(gw.url, entry.token, 'modern')).toEqual(want);
          expect(await namesOutsideSession(gw.url, entry.token, 'legacy')).toEqual(want);
        }
      }
    };
    await checkAll(everything);

    // Bob leaves the role Ada keeps: they shared its lists until now.
    const assigned = await gw.gateway.request('PUT', `/api/policy/users/${bob.id}/role`, {
      as: 'service',
      body: { roleId: 'noter' },
    });
    expect(assigned.status).toBe(200);
    roleOf.set(bob.id, 'noter');
    await checkAll(everything);

    // The role itself changes.
    const updated = await gw.gateway.request('PUT', '/api/policy/roles/writer', {
      as: 'service',
      body: { id: 'writer', name: 'Writer', patterns: ['crm.**', 'demo.echo.*'] },
    });
    expect(updated.status).toBe(200);
    roles.writer = ['crm.**', 'demo.echo.*'];
    await checkAll(everything);

    // One of Ada's two endpoints with the same patterns is narrowed; the other keeps them.
    const narrowed = served.filter(
      (entry) => entry.who === ada && entry.tools?.[0] === 'notes.notes.list',
    );
    const patched = narrowed[1] as Served;
    const response = await gw.gateway.request(
      'PATCH',
      `/api/connections/mcp-endpoints/${patched.id}`,
      { as: 'service', body: { userId: ada.id, tools: ['crm.contacts.*'] } },
    );
    expect(response.status).toBe(200);
    patched.tools = ['crm.contacts.*'];
    await checkAll(everything);

    // The catalog changes: the crm plugin is registered.
    const registered = await gw.gateway.request('POST', '/api/registry/sources', {
      as: 'service',
      body: { type: 'plugin', id: 'crm', namespace: 'crm', pluginId: 'crm' },
    });
    expect(registered.status).toBe(201);
    const crm = ['crm.contacts.create', 'crm.contacts.list', 'crm.notes.attach'];
    expect(everything.some((name) => name.startsWith('crm.'))).toBe(false);
    await checkAll([...everything, ...crm].sort());
    // ~520 round trips in five rounds: past the 30 s default on a loaded machine, not a hang.
  }, 90_000);
});

describe.skipIf(!pgUrl)("a session's tools/list across instances on PostgreSQL", () => {
  it('follows a role changed on another instance, and stores no event for the answer', async () => {
    const scoped = await createPostgresTestDatabase(pgUrl as string);
    onTestFinished(scoped.drop);
    const state = emptyFixtureState();
    const a = await withRoles(
      await startMcpGateway({ databaseUrl: scoped.url, state, plugins: toolsetPlugins() }),
    );
    const b = await startMcpGateway({ databaseUrl: scoped.url, state, plugins: toolsetPlugins() });
    const ada = await a.user({ roleId: 'writer' });
    const bob = await a.user({ roleId: 'writer' });
    const { client: adaOnB } = await connectV1(b.url, ada.mcpToken);
    const { client: bobOnB } = await connectV1(b.url, bob.mcpToken);
    const writer = names((await adaOnB.listTools()).tools);
    expect(names((await bobOnB.listTools()).tools)).toEqual(writer);
    expect(writer).toContain('crm.contacts.list');

    const assigned = await a.gateway.request('PUT', `/api/policy/users/${bob.id}/role`, {
      as: 'service',
      body: { roleId: 'noter' },
    });
    expect(assigned.status).toBe(200);
    expect(names((await bobOnB.listTools()).tools)).toEqual(
      writer.filter((name) => name.startsWith('notes.')),
    );
    expect(names((await adaOnB.listTools()).tools)).toEqual(writer);

    // The answer is JSON, with no event to resume: none is written to the session's event log.
    const { db } = a.gateway.services.database;
    const { sessionId, post } = await openRawSession(b.url, ada.mcpToken);
    // The table belongs to shared-sessions/, outside the gateway's own schema type.
    const events = async () =>
      (
        await sql<{ count: string }>`
          select count(*) as count from mcp_session_events where session_id = ${sessionId}
        `.execute(db)
      ).rows[0]?.count;
    const before = await events();
    const listed = await messageOf(await post({ jsonrpc: '2.0', id: 2, method: 'tools/list' }));
    expect(names((listed.result as { tools: { name: string }[] }).tools)).toEqual(writer);
    expect(await events()).toBe(before);
  });
});
