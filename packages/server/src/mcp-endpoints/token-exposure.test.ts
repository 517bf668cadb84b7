import { describe, expect, it } from 'vitest';
import { createTestGateway } from '#test/support/test-gateway.js';

describe('the raw MCP token', () => {
  it('appears only in the create answer: not in lists, errors or logs', async () => {
    const gw = await createTestGateway();
    const alice = await gw.createUser();
    const bob = await gw.createUser();
    const answers: string[] = [];
    const send = async (...args: Parameters<typeof gw.request>) => {
      const res = await gw.request(...args);
      const text = await res.text();
      answers.push(`${res.status} ${text}`);
      return JSON.parse(text);
    };

    const created = await gw.request('POST', '/api/connections/mcp-endpoints', {
      as: alice,
      body: { userId: alice.id, name: 'Claude' },
    });
    const { id, token } = (await created.json()) as { id: string; token: string };
    const random = token.slice('gw_mcp_'.length);

    await send('POST', '/api/connections/mcp-endpoints', {
      as: alice,
      body: { userId: alice.id, name: 'Claude' },
    });
    await send('GET', `/api/connections/mcp-endpoints?userId=${alice.id}`, { as: alice });
    await send('GET', `/api/connections/mcp-endpoints?userId=${alice.id}`, { as: 'service' });
    await send('GET', `/api/connections/mcp-endpoints?userId=${alice.id}`, { as: bob });
    await send('DELETE', `/api/connections/mcp-endpoints/${id}?userId=${bob.id}`, { as: bob });
    // A token sent where it does not belong is refused without being echoed.
    await send('GET', `/api/connections/mcp-endpoints?userId=${alice.id}`, { as: { token } });
    await send('DELETE', `/api/connections/mcp-endpoints/${id}?userId=${alice.id}`, { as: alice });

    expect(answers.map((answer) => answer.slice(0, 3))).toEqual([
      '409',
      '200',
      '200',
      '403',
      '404',
      '401',
      '200',
    ]);
    for (const answer of answers) expect(answer).not.toContain(random);
    expect(gw.logs()).not.toContain(random);
  });
});
