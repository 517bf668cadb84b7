/**
 * An OAuth endpoint (issue 32) is a toolset like any other (issue 33): made with the whole role in
 * `tools` mode, listed with its kind, tools and mode, and narrowed or switched to discovery by the
 * same PATCH; calls with its `gw_oat_` access token then see exactly what it serves.
 */
import { describe, expect, it } from 'vitest';
import { connectV1, connectV2 } from '#test/mcp/mcp-test-kit.js';
import { toolsetPlugins } from '#test/mcp/toolset-plugins.js';
import {
  registerClient,
  signedInBrowser,
  signIn,
  startOAuthGateway,
} from '#test/mcp-oauth/oauth-kit.js';

const names = (tools: readonly { name: string }[]) => tools.map((tool) => tool.name).sort();

describe('an OAuth endpoint as a toolset', () => {
  it('serves the whole role, then only its tools after a PATCH, then the meta-tools in discovery mode', async () => {
    const gw = await startOAuthGateway({ plugins: toolsetPlugins([]) });
    const { policy, database } = gw.gateway.services;
    await policy.createRole({ id: 'writer', name: 'Writer', patterns: ['notes.**', 'crm.**'] });
    await signedInBrowser(gw.url, 'first@example.test'); // the first user is the admin
    const email = `ada-${crypto.randomUUID().slice(0, 8)}@example.test`;
    const session = await signedInBrowser(gw.url, email);
    const { id: userId } = await database.db
      .selectFrom('user')
      .select('id')
      .where('email', '=', email)
      .executeTakeFirstOrThrow();
    await policy.assignRole(userId, 'writer');

    const registered = await registerClient(gw.url, {
      client_name: 'Toolset app',
      redirect_uris: ['http://127.0.0.1/callback'],
    });
    expect(registered.status).toBe(201);
    const client = {
      clientId: String(registered.body.client_id),
      redirectUri: 'http://127.0.0.1:50123/callback',
    };
    const { status, body } = await signIn(gw, session, client);
    expect(status).toBe(200);
    const accessToken = String(body.access_token);
    expect(accessToken).toMatch(/^gw_oat_/);

    const list = async () => {
      const res = await session.browse(`/api/connections/mcp-endpoints?userId=${userId}`);
      expect(res.status).toBe(200);
      return ((await res.json()) as { endpoints: Record<string, unknown>[] }).endpoints;
    };
    const [listed] = await list();
    expect(listed).toMatchObject({
      name: 'Toolset app',
      kind: 'oauth',
      clientId: client.clientId,
      tools: null,
      mode: 'tools',
    });
    const endpointId = String(listed?.id);

    const { client: whole } = await connectV1(gw.url, accessToken);
    expect(names((await whole.listTools()).tools)).toEqual([
      'crm.contacts.create',
      'crm.contacts.list',
      'crm.notes.attach',
      'notes.notes.create',
      'notes.notes.delete',
      'notes.notes.get',
      'notes.notes.list',
    ]);

    const patch = async (change: Record<string, unknown>) =>
      session.browse(`/api/connections/mcp-endpoints/${endpointId}`, {
        method: 'PATCH',
        body: { userId, ...change },
      });
    const narrowed = await patch({ tools: ['notes.notes.list'] });
    expect(narrowed.status).toBe(200);
    expect(await narrowed.json()).toMatchObject({
      endpoint: { id: endpointId, kind: 'oauth', tools: ['notes.notes.list'], mode: 'tools' },
    });

    const narrow = await connectV2(gw.url, accessToken);
    expect(names((await narrow.listTools()).tools)).toEqual(['notes.notes.list']);
    expect(
      (await narrow.callTool({ name: 'notes.notes.list', arguments: {} })).isError,
    ).toBeFalsy();
    await expect(
      narrow.callTool({ name: 'crm.contacts.list', arguments: {} }),
    ).rejects.toMatchObject({ message: expect.stringContaining('crm.contacts.list') });
    const [record] = await database.db
      .selectFrom('executions')
      .select(['tool_path', 'endpoint_id', 'client_id', 'outcome'])
      .where('tool_path', '=', 'notes.notes.list')
      .execute();
    expect(record).toEqual({
      tool_path: 'notes.notes.list',
      endpoint_id: endpointId,
      client_id: client.clientId,
      outcome: 'ok',
    });

    expect((await patch({ mode: 'discovery' })).status).toBe(200);
    const { client: discovery } = await connectV1(gw.url, accessToken);
    expect(names((await discovery.listTools()).tools)).toEqual([
      'gateway.call_tool',
      'gateway.describe_tools',
      'gateway.search_tools',
    ]);
    const [after] = await list();
    expect(after).toMatchObject({ kind: 'oauth', tools: ['notes.notes.list'], mode: 'discovery' });
  });
});
