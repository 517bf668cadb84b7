import { describe, expect, it } from 'vitest';
import { rememberSecret } from '#test/support/known-secrets.js';
import { createTestGateway } from '#test/support/test-gateway.js';

describe('/api/invites', () => {
  it('creates a link shown once, lists invites without any token, and revokes', async () => {
    const gw = await createTestGateway({ signup: { mode: 'invite' } });
    const admin = await gw.createUser({ admin: true });
    const before = Date.now();
    const res = await gw.request('POST', '/api/invites', {
      as: admin,
      body: { email: ' Ada@Example.COM ', expiresInDays: 3 },
    });
    expect(res.status).toBe(201);
    const created = (await res.json()) as {
      invite: Record<string, unknown> & { id: string; createdAt: string; expiresAt: string };
      url: string;
    };
    const url = new URL(created.url);
    const token = url.searchParams.get('invite') ?? '';
    rememberSecret(token);
    expect(`${url.origin}${url.pathname}`).toBe('http://127.0.0.1:8787/sign-up');
    expect(token).toMatch(/^gw_inv_[A-Za-z0-9]{40}$/);
    expect(created.invite).toEqual({
      id: expect.any(String),
      email: 'ada@example.com',
      createdBy: admin.id,
      createdAt: expect.any(String),
      expiresAt: expect.any(String),
      status: 'pending',
      usedAt: null,
      usedBy: null,
    });
    const days = (Date.parse(created.invite.expiresAt) - before) / 86_400_000;
    expect(days).toBeGreaterThan(2.99);
    expect(days).toBeLessThan(3.01);

    // The default lifetime is 7 days.
    const plain = await gw.request('POST', '/api/invites', { as: admin, body: {} });
    const plainBody = (await plain.json()) as {
      invite: { id: string; createdAt: string; expiresAt: string };
      url: string;
    };
    rememberSecret(new URL(plainBody.url).searchParams.get('invite') ?? '');
    expect(Math.round((Date.parse(plainBody.invite.expiresAt) - Date.now()) / 86_400_000)).toBe(7);

    const listed = await gw.request('GET', '/api/invites', { as: admin });
    expect(listed.status).toBe(200);
    const text = await listed.text();
    expect(text).not.toContain('gw_inv_');
    expect(text).not.toContain(token.slice(7));
    const { invites } = JSON.parse(text) as { invites: { id: string; status: string }[] };
    // Newest first; two made within one millisecond (a warm, quick machine) the greater id first.
    const newestFirst = [plainBody.invite, created.invite].sort(
      (a, b) => b.createdAt.localeCompare(a.createdAt) || (a.id < b.id ? 1 : -1),
    );
    expect(invites.map((invite) => invite.id)).toEqual(newestFirst.map((invite) => invite.id));
    // Made in the same millisecond for certain: by id, the greater first, as every newest-first
    // list orders its ties (docs/api.md, "Lists").
    await gw.services.database.db
      .updateTable('invites')
      .set({ created_at: created.invite.createdAt })
      .execute();
    const tied = (await (await gw.request('GET', '/api/invites', { as: admin })).json()) as {
      invites: { id: string }[];
    };
    expect(tied.invites.map((invite) => invite.id)).toEqual(
      [created.invite.id, plainBody.invite.id].sort().reverse(),
    );
    // Only the hash is stored.
    const rows = await gw.services.database.db.selectFrom('invites').selectAll().execute();
    expect(JSON.stringify(rows)).not.toContain(token.slice(7));

    const del = await gw.request('DELETE', `/api/invites/${created.invite.id}`, { as: admin });
    expect(del.status).toBe(200);
    expect(await del.json()).toEqual({ deleted: [created.invite.id] });
    const again = await gw.request('DELETE', `/api/invites/${created.invite.id}`, { as: admin });
    expect(again.status).toBe(404);
    const after = (await (await gw.request('GET', '/api/invites', { as: admin })).json()) as {
      invites: { id: string; status: string }[];
    };
    expect(after.invites.find((invite) => invite.id === created.invite.id)?.status).toBe('revoked');

    // No log line holds the token (the leak check fails the file too).
    expect(gw.logs()).not.toContain(token.slice(7));
  });

  it('refuses plain users, service accounts and the service secret, and anonymous callers', async () => {
    const gw = await createTestGateway();
    const user = await gw.createUser();
    const admin = await gw.createUser({ admin: true });
    const made = (await (
      await gw.request('POST', '/api/invites', { as: admin, body: {} })
    ).json()) as { invite: { id: string }; url: string };
    rememberSecret(new URL(made.url).searchParams.get('invite') ?? '');
    for (const [method, path] of [
      ['POST', '/api/invites'],
      ['GET', '/api/invites'],
      ['DELETE', `/api/invites/${made.invite.id}`],
    ] as const) {
      const body = method === 'POST' ? {} : undefined;
      const asUser = await gw.request(method, path, { as: user, body });
      expect(asUser.status).toBe(403);
      expect(((await asUser.json()) as { error: { code: string } }).error.code).toBe('forbidden');
      expect((await gw.request(method, path, { as: 'service', body })).status).toBe(403);
      expect((await gw.request(method, path, { body })).status).toBe(401);
    }
  });

  it('rejects hostile input with 400 in the error shape, never a 5xx', async () => {
    const gw = await createTestGateway();
    const admin = await gw.createUser({ admin: true });
    for (const body of [
      { email: 'not an address' },
      { expiresInDays: 0 },
      { expiresInDays: 91 },
      { expiresInDays: 1.5 },
      { expiresInDays: '7' },
      { email: 'a@example.com', role: 'admin' },
      { email: `${'a'.repeat(300)}@example.com` },
      { email: 'a\u0000@example.com' },
      [],
    ]) {
      const res = await gw.request('POST', '/api/invites', { as: admin, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(((await res.json()) as { error: { code: string } }).error.code).toMatch(
        /^(validation_failed|bad_request)$/,
      );
    }
    expect((await gw.request('DELETE', '/api/invites/not-a-uuid', { as: admin })).status).toBe(404);
    expect(
      (await gw.request('DELETE', `/api/invites/${crypto.randomUUID()}`, { as: admin })).status,
    ).toBe(404);
    expect((await gw.request('GET', '/api/invites?status=pending', { as: admin })).status).toBe(
      400,
    );
  });
});
