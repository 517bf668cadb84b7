import { describe, expect, it } from 'vitest';
import { createTestGateway } from '#test/support/test-gateway.js';

// Shaped so the log redactor's patterns do not catch it: a leak must not be hidden by redaction.
const SECRET = 'zebra-horse-battery-staple-5e1f7a';
// Everything but the four characters the masked form may show.
const HIDDEN_PART = SECRET.slice(0, -4);

describe('the raw secret of a connection', () => {
  it('appears in no answer but decrypt, and never in the logs', async () => {
    const gw = await createTestGateway();
    const alice = await gw.createUser();
    const bob = await gw.createUser();
    const body = { userId: alice.id, toolId: 'github', instanceName: 'Work', secret: SECRET };
    const answers: string[] = [];
    const send = async (...args: Parameters<typeof gw.request>) => {
      const res = await gw.request(...args);
      const text = await res.text();
      answers.push(`${res.status} ${text}`);
      return JSON.parse(text);
    };

    const { id } = await send('POST', '/api/connections', { as: alice, body });
    await send('POST', '/api/connections', { as: alice, body }); // 409
    await send('POST', '/api/connections', { as: bob, body }); // 403
    await send('POST', '/api/connections', { body }); // 401
    await send('POST', '/api/connections', { as: 'service', body: { ...body, userId: 'ghost' } }); // 404
    await send('POST', '/api/connections', { as: alice, body: { ...body, toolId: 'Bad Tool' } }); // 400
    await send('POST', '/api/connections', { as: alice, body: { ...body, extra: SECRET } }); // 400
    await send('POST', '/api/connections', { as: alice, body: `{"secret":"${SECRET}",` }); // bad JSON
    await send('POST', '/api/connections', {
      as: alice,
      body: { ...body, instanceName: 'Child', parentId: crypto.randomUUID() },
    }); // 404
    await send('GET', `/api/connections?userId=${alice.id}`, { as: alice });
    await send('GET', `/api/connections?userId=${alice.id}`, { as: 'service' });
    await send('POST', `/api/connections/${id}/decrypt`, { as: alice }); // 403
    await send('DELETE', `/api/connections/${id}?userId=${bob.id}`, { as: bob }); // 404

    expect(answers.map((answer) => answer.slice(0, 3))).toEqual([
      '201',
      '409',
      '403',
      '401',
      '404',
      '400',
      '400',
      '400',
      '404',
      '200',
      '200',
      '403',
      '404',
    ]);
    for (const answer of answers) expect(answer).not.toContain(HIDDEN_PART);

    const decrypted = await send('POST', `/api/connections/${id}/decrypt`, { as: 'service' });
    expect(decrypted.secret).toBe(SECRET);
    await send('DELETE', `/api/connections/${id}?userId=${alice.id}`, { as: alice });

    expect(gw.logs()).toContain('"route":"/api/connections"');
    expect(gw.logs()).not.toContain(HIDDEN_PART);
  });
});
