import { describe, expect, it } from 'vitest';
import { createTestGateway, TEST_SERVICE_SECRET } from '#test/support/test-gateway.js';
import { createSecretBox } from '../secrets/index.js';

const SECRET = 'zebra-horse-battery-staple-c0ffee';

async function setup() {
  const gw = await createTestGateway();
  const alice = await gw.createUser();
  const res = await gw.request('POST', '/api/connections', {
    as: alice,
    body: { userId: alice.id, toolId: 'github', instanceName: 'Work', secret: SECRET },
  });
  const { id } = (await res.json()) as { id: string };
  return { gw, alice, id };
}

describe('POST /api/connections/:id/decrypt', () => {
  it('returns the raw secret to the service secret, uncached', async () => {
    const { gw, id } = await setup();

    const res = await gw.request('POST', `/api/connections/${id}/decrypt`, { as: 'service' });

    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await res.json()).toEqual({ id, secret: SECRET });
    expect(gw.logs()).not.toContain(SECRET);
  });

  // Issue 18: HTTP client wrappers send `{}` on every POST; it answered 400 "takes no body".
  it('takes an empty JSON object as no body, over HTTP, and still refuses one with a field', async () => {
    const gw = await createTestGateway({ host: '127.0.0.1', port: 0, baseUrl: undefined });
    const alice = await gw.createUser();
    const created = await gw.request('POST', '/api/connections', {
      as: alice,
      body: { userId: alice.id, toolId: 'github', instanceName: 'Work', secret: SECRET },
    });
    const { id } = (await created.json()) as { id: string };
    const { url } = await gw.start();
    const post = (body: string) =>
      fetch(`${url}/api/connections/${id}/decrypt`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${TEST_SERVICE_SECRET}`,
          'content-type': 'application/json',
        },
        body,
      });

    for (const body of ['{}', ' { } ', '']) {
      const res = await post(body);
      expect(res.status, JSON.stringify(body)).toBe(200);
      expect(await res.json()).toEqual({ id, secret: SECRET });
    }
    for (const body of ['{"userId":"x"}', '[]', 'null']) {
      const res = await post(body);
      expect(res.status, body).toBe(400);
      expect(await res.json()).toMatchObject({ error: { code: 'bad_request' } });
    }
  });

  it('answers 403 to the owner and to an admin, and 401 without credentials', async () => {
    const { gw, alice, id } = await setup();
    const admin = await gw.createUser({ admin: true });

    for (const as of [alice, admin]) {
      const res = await gw.request('POST', `/api/connections/${id}/decrypt`, { as });
      expect(res.status).toBe(403);
      const body = await res.json();
      expect(body).toEqual({ error: { code: 'forbidden', message: expect.any(String) } });
      expect(JSON.stringify(body)).not.toContain(SECRET);
    }
    const anonymous = await gw.request('POST', `/api/connections/${id}/decrypt`);
    expect(anonymous.status).toBe(401);
  });

  it('answers 404 for an unknown or malformed id', async () => {
    const { gw } = await setup();

    for (const id of [crypto.randomUUID(), 'nope']) {
      const res = await gw.request('POST', `/api/connections/${id}/decrypt`, { as: 'service' });
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({
        error: { code: 'not_found', message: `No connection ${id}` },
      });
    }
  });

  // Issue 14 item 4: a stored value no configured key opens is the server's state, not a 5xx.
  it('answers 409 secret_unreadable, naming the connection and no secret material, when the stored value cannot be decrypted', async () => {
    const { gw, id } = await setup();
    const { db } = gw.services.database;
    const tampered = [
      // Altered ciphertext: the GCM tag no longer matches.
      async () => {
        const row = await db
          .selectFrom('connections')
          .select('encrypted_secret')
          .where('id', '=', id)
          .executeTakeFirstOrThrow();
        const [iv, sealed = ''] = row.encrypted_secret.split(':');
        const bytes = Buffer.from(sealed, 'base64');
        bytes[0] = (bytes[0] ?? 0) ^ 0xff;
        return `${iv}:${bytes.toString('base64')}`;
      },
      // Encrypted under another AUTH_SECRET.
      async () => createSecretBox('another-auth-secret-entirely').encrypt(SECRET),
    ];

    for (const make of tampered) {
      const stored = await make();
      await db
        .updateTable('connections')
        .set({ encrypted_secret: stored })
        .where('id', '=', id)
        .execute();

      const res = await gw.request('POST', `/api/connections/${id}/decrypt`, { as: 'service' });

      expect(res.status).toBe(409);
      const body = await res.json();
      expect(body).toEqual({
        error: {
          code: 'secret_unreadable',
          message: expect.stringContaining(`connection ${id} cannot be decrypted`),
          details: { connectionId: id },
        },
      });
      const errorLine = gw
        .logs()
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line))
        .findLast((line) => line.level === 'error');
      expect(errorLine).toMatchObject({
        msg: 'stored secret cannot be decrypted',
        connectionId: id,
      });
      for (const text of [JSON.stringify(body), gw.logs()]) {
        expect(text).not.toContain(SECRET);
        expect(text).not.toContain(stored);
        expect(text).not.toContain(stored.split(':')[1]);
      }
    }
  });
});
