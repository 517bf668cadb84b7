/**
 * `PATCH /api/registry/sources/:id`: an admin changes which of an upstream's tools ask for
 * approval, and whether service accounts may use them, without registering it again. Only those
 * settings: its URL and auth stay as registered.
 */
import { describe, expect, it } from 'vitest';
import { connectV2, startMcpGateway } from '#test/mcp/mcp-test-kit.js';
import { notesPlugin } from '#test/registry/test-plugins.js';
import { type As, createTestGateway } from '#test/support/test-gateway.js';
import { startFakeUpstream } from '#test/upstream/fake-upstream.js';

const ALLOW_PRIVATE = { GATEWAY_UPSTREAM_ALLOW_PRIVATE: 'true' };

describe("an upstream source's settings", () => {
  it('ask for approval before a tool once an admin names it, without asking the upstream again', async () => {
    const fake = await startFakeUpstream([{ name: 'send', behaviour: { kind: 'answer' } }]);
    const mcp = await startMcpGateway({ env: ALLOW_PRIVATE });
    const admin = await mcp.user({ admin: true });
    const registered = await mcp.gateway.request('POST', '/api/registry/sources', {
      as: 'service',
      body: { type: 'mcp', approval: 'listed', id: 'fake', namespace: 'fake', url: fake.url },
    });
    expect(registered.status).toBe(201);
    const client = await connectV2(mcp.url, admin.mcpToken, { elicitation: true });
    const asked: string[] = [];
    client.setRequestHandler('elicitation/create', async (request) => {
      asked.push(request.params.message);
      return { action: 'decline' };
    });
    expect((await client.callTool({ name: 'fake.send', arguments: {} })).isError).toBeFalsy();
    expect(asked).toEqual([]);

    const changed = await mcp.gateway.request('PATCH', '/api/registry/sources/fake', {
      as: admin,
      body: { approvalRequired: ['send'] },
    });
    expect(changed.status).toBe(200);
    const { tools } = await client.listTools();
    // What asks is the gateway's business: the upstream's annotations (none here) stay as they are.
    expect(tools.find((tool) => tool.name === 'fake.send')?.annotations).toBeUndefined();
    const declined = await client.callTool({ name: 'fake.send', arguments: {} });
    expect(declined.isError).toBe(true);
    expect(asked).toHaveLength(1);
    // The upstream ran the first call only, and was not asked for its list again.
    expect(fake.calls).toHaveLength(1);

    // Naming none again: no question.
    await mcp.gateway.request('PATCH', '/api/registry/sources/fake', {
      as: admin,
      body: { approvalRequired: [] },
    });
    expect((await client.callTool({ name: 'fake.send', arguments: {} })).isError).toBeFalsy();
    expect(asked).toHaveLength(1);
  });

  it('refuse anyone but an admin or the service secret, other fields, and sources without them', async () => {
    const fake = await startFakeUpstream([{ name: 'send', behaviour: { kind: 'answer' } }]);
    const gw = await createTestGateway({ plugins: [notesPlugin()], env: ALLOW_PRIVATE });
    for (const body of [
      { type: 'mcp', id: 'fake', namespace: 'fake', url: fake.url },
      { type: 'plugin', id: 'notes', namespace: 'notes', pluginId: 'notes' },
    ]) {
      expect(
        (await gw.request('POST', '/api/registry/sources', { as: 'service', body })).status,
      ).toBe(201);
    }
    const user = await gw.createUser();
    const admin = await gw.createUser({ admin: true });
    const patch = (body: unknown, as: As | undefined, id = 'fake') =>
      gw.request('PATCH', `/api/registry/sources/${id}`, {
        ...(as === undefined ? {} : { as }),
        body,
      });

    const cases: [string, Response, number, string][] = [
      ['no credentials', await patch({ approvalRequired: [] }, undefined), 401, 'unauthorized'],
      ['a plain user', await patch({ approvalRequired: [] }, user), 403, 'forbidden'],
      ['an unknown source', await patch({ approvalRequired: [] }, admin, 'nope'), 404, 'not_found'],
      [
        'a plugin source',
        await patch({ approvalRequired: [] }, admin, 'notes'),
        400,
        'bad_request',
      ],
      ['nothing to change', await patch({}, admin), 400, 'validation_failed'],
      ['its URL', await patch({ url: 'http://127.0.0.1:1/mcp' }, admin), 400, 'validation_failed'],
      ['its auth', await patch({ auth: { kind: 'none' } }, admin), 400, 'validation_failed'],
      [
        'a wrong type',
        await patch({ serviceAccountAllowed: 'yes' }, admin),
        400,
        'validation_failed',
      ],
    ];
    for (const [what, response, status, code] of cases) {
      expect(response.status, what).toBe(status);
      expect(await response.json(), what).toMatchObject({ error: { code } });
    }
    const listed = await gw.request('GET', '/api/registry/sources', { as: admin });
    expect(await listed.json()).toMatchObject({
      sources: expect.arrayContaining([
        expect.objectContaining({
          id: 'fake',
          upstream: expect.objectContaining({
            url: fake.url,
            approvalRequired: [],
            serviceAccountAllowed: false,
          }),
        }),
      ]),
    });
  });
});
