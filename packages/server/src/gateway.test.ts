import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createTestGateway } from '#test/support/test-gateway.js';
import { createSecretBox } from './secrets/index.js';

describe('gateway app', () => {
  it('answers /healthz and /readyz when the database answers', async () => {
    const gw = await createTestGateway();
    const res = await gw.request('GET', '/healthz');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true, database: 'up' });
    const ready = await gw.request('GET', '/readyz');
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ ready: true });
  });

  it('answers unknown routes with the JSON error body', async () => {
    const gw = await createTestGateway();
    const res = await gw.request('GET', '/api/nope', { as: 'service' });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({
      error: { code: 'not_found', message: 'No route GET /api/nope' },
    });
  });

  it('answers a wrong method with 405, the Allow header and the JSON error body', async () => {
    const gw = await createTestGateway();
    const res = await gw.request('POST', '/healthz');
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET');
    expect(await res.json()).toMatchObject({ error: { code: 'method_not_allowed' } });
  });

  it('rejects a malformed or unknown bearer token with 401', async () => {
    const gw = await createTestGateway();
    for (const authorization of [
      'Basic abc',
      'Bearer gw_cli_unknown0000000000000000000000000',
      'Bearer nope',
    ]) {
      const res = await gw.request('GET', '/api/nope', { headers: { authorization } });
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({ error: { code: 'unauthorized' } });
    }
  });

  it('refuses to start without AUTH_SECRET, naming both ways to set it', async () => {
    const { createGateway } = await import('./gateway.js');
    await expect(
      createGateway({ env: {}, databaseUrl: ':memory:', configFile: false }),
    ).rejects.toThrow(/AUTH_SECRET.*environment variable.*authSecret/);
  });

  // Issue 14 item 3: `AUTH_SECRET=a` was accepted, and a brute force of SHA-256("a") found it.
  it('refuses an AUTH_SECRET under 32 characters, in one line saying how to make one, without echoing it', async () => {
    const { createGateway } = await import('./gateway.js');
    const short = 'x31-characters-long-auth-secret';
    expect(short).toHaveLength(31);
    for (const options of [{ env: { AUTH_SECRET: ` ${short} ` } }, { authSecret: short }]) {
      const attempt = createGateway({ ...options, databaseUrl: ':memory:', configFile: false });
      await expect(attempt).rejects.toThrow(
        /^AUTH_SECRET is shorter than 32 characters: make one with `openssl rand -base64 32` and keep it \(set the AUTH_SECRET environment variable or the authSecret option of createGateway\(\)\)[^\n]*GATEWAY_PREVIOUS_AUTH_SECRETS[^\n]*$/,
      );
      await expect(attempt).rejects.not.toThrow(/x31-characters/);
    }
    const gw = await createTestGateway({ authSecret: `${short}y` });
    expect((await gw.request('GET', '/healthz')).status).toBe(200);
  });

  it('accepts previous auth secrets of any length, since a weak one is what rotation replaces', async () => {
    const gw = await createTestGateway({ env: { GATEWAY_PREVIOUS_AUTH_SECRETS: ' a , b ' } });
    const user = await gw.createUser();
    const id = crypto.randomUUID();
    const now = new Date().toISOString();
    await gw.services.database.db
      .insertInto('connections')
      .values({
        id,
        user_id: user.id,
        owner: 'user',
        tool_id: 'github',
        instance_name: 'Stored under a',
        description: null,
        encrypted_secret: createSecretBox('a').encrypt('ghp_weak-era-0123456789'),
        masked_secret: '••••••••6789',
        workspace_id: null,
        parent_id: null,
        created_at: now,
        updated_at: now,
      })
      .execute();
    const res = await gw.request('POST', `/api/connections/${id}/decrypt`, { as: 'service' });
    expect(await res.json()).toEqual({ id, secret: 'ghp_weak-era-0123456789' });
  });

  it('refuses a SERVICE_API_SECRET under 16 characters, without echoing it', async () => {
    const { createGateway } = await import('./gateway.js');
    for (const options of [
      {
        env: {
          AUTH_SECRET: 'an-auth-secret-0123456789abcdefghijkl',
          SERVICE_API_SECRET: ' short-secret-15 ',
        },
      },
      { authSecret: 'an-auth-secret-0123456789abcdefghijkl', serviceApiSecret: 'short-secret-15' },
    ]) {
      const attempt = createGateway({ ...options, databaseUrl: ':memory:', configFile: false });
      await expect(attempt).rejects.toThrow(
        /^SERVICE_API_SECRET is shorter than 16 characters: set the variable \(or the serviceApiSecret option\)/,
      );
      await expect(attempt).rejects.not.toThrow(/short-secret/);
    }
  });

  it('refuses a malformed setting before it opens anything: no database is left behind', async () => {
    const { createGateway } = await import('./gateway.js');
    const dir = await mkdtemp(join(tmpdir(), 'gateway-settings-'));
    try {
      const file = join(dir, 'gateway.db');
      for (const [name, value] of [
        ['GATEWAY_UPSTREAM_ALLOW_PRIVATE', 'maybe'],
        ['GATEWAY_UPSTREAM_CLIENT_METADATA', 'perhaps'],
        ['GATEWAY_UPSTREAM_MAX_BYTES', '12'],
        ['GATEWAY_UPSTREAM_REFRESH_SECONDS', '-1'],
        ['GATEWAY_REGISTRY_SYNC_SECONDS', 'soon'],
        ['GATEWAY_SIGNUP', 'sometimes'],
        // A host name would be skipped by the address parser, leaving no forwarded address counted.
        ['GATEWAY_TRUSTED_PROXIES', 'lb.internal'],
      ] as const) {
        const attempt = createGateway({
          env: { AUTH_SECRET: 'an-auth-secret-0123456789abcdefghijkl', [name]: value },
          databaseUrl: file,
          configFile: false,
        });
        await expect(attempt).rejects.toThrow(new RegExp(`^${name} must be .*"${value}"`));
        expect(existsSync(file)).toBe(false);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("refuses a sign-in provider's address that is not https, before it opens anything", async () => {
    const { createGateway } = await import('./gateway.js');
    const dir = await mkdtemp(join(tmpdir(), 'gateway-settings-'));
    const file = join(dir, 'gateway.db');
    const gcp = { GCP_CLIENT_ID: 'gcp-client', GCP_CLIENT_SECRET: 'gcp-client-secret-0123' };
    const microsoft = {
      MICROSOFT_CLIENT_ID: 'ms-client',
      MICROSOFT_CLIENT_SECRET: 'ms-secret-0123',
    };
    const start = (env: Record<string, string>) =>
      createGateway({
        env: { AUTH_SECRET: 'an-auth-secret-0123456789abcdefghijkl', ...env },
        databaseUrl: file,
        configFile: false,
      });
    try {
      for (const [env, message] of [
        [
          { ...gcp, GCP_ISSUER_URL: 'http://idp.example.com' },
          /^GCP_ISSUER_URL must be an https:\/\/ URL/,
        ],
        [
          { ...gcp, GCP_TOKEN_URL: 'https://gw:hunter2@idp.example.com/token' },
          /^GCP_TOKEN_URL must not hold a user name or password$/,
        ],
        [
          { ...microsoft, MICROSOFT_AUTHORITY: 'http://login.example.net' },
          /^MICROSOFT_AUTHORITY must be an https:\/\/ URL/,
        ],
      ] as const) {
        await expect(start(env)).rejects.toThrow(message);
        expect(existsSync(file)).toBe(false);
      }
      // Plain http to this machine stays allowed, for a local test server.
      const local = await start({ ...gcp, GCP_ISSUER_URL: 'http://127.0.0.1:9/' });
      await local.stop();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('writes the base URL in its normal form, and refuses one that is no web address', async () => {
    const { createGateway, openGateway } = await import('./gateway.js');
    const env = { AUTH_SECRET: 'an-auth-secret-0123456789abcdefghijkl' };
    // The lower-case scheme is what the secure-cookie checks look for.
    const gw = await openGateway({
      env: { ...env, GATEWAY_BASE_URL: 'HTTPS://GW.Example.com/' },
      databaseUrl: ':memory:',
      configFile: false,
    });
    expect(gw.services.baseUrl).toBe('https://gw.example.com');
    expect(gw.services.authBaseUrl).toBe('https://gw.example.com');
    await gw.stop();
    for (const options of [
      { env: { ...env, GATEWAY_BASE_URL: 'gw.example.com' } },
      { env: { ...env, AUTH_BASE_URL: 'ftp://gw.example.com' } },
    ]) {
      await expect(
        createGateway({ ...options, databaseUrl: ':memory:', configFile: false }),
      ).rejects.toThrow(/_URL \(or the \w+ option\) must be an http:\/\/ or https:\/\/ URL/);
    }
    await expect(
      createGateway({ env, registrySyncSeconds: -1, databaseUrl: ':memory:', configFile: false }),
    ).rejects.toThrow('GATEWAY_REGISTRY_SYNC_SECONDS must be a number of seconds >= 0, got "-1"');
  });

  it('trims AUTH_SECRET and SERVICE_API_SECRET read from the environment', async () => {
    const service = 'trimmed-service-secret-0123456789';
    const gw = await createTestGateway({
      env: {
        AUTH_SECRET: '  trimmed-auth-secret-0123456789abcdef\n',
        SERVICE_API_SECRET: `\t${service} \n`,
      },
      authSecret: undefined,
      serviceApiSecret: undefined,
    });
    const asTrimmed = await gw.request('GET', '/api/me', {
      headers: { authorization: `Bearer ${service}` },
    });
    expect(asTrimmed.status).toBe(200);
    expect(await asTrimmed.json()).toMatchObject({ kind: 'service' });
    // Stored secrets are encrypted under the trimmed AUTH_SECRET.
    const other = createSecretBox('trimmed-auth-secret-0123456789abcdef');
    const user = await gw.createUser();
    const created = await gw.request('POST', '/api/connections', {
      as: user,
      body: {
        userId: user.id,
        toolId: 'github',
        instanceName: 'Work',
        secret: 'ghp_trim-check-0123456789',
      },
    });
    expect(created.status).toBe(201);
    const row = await gw.services.database.db
      .selectFrom('connections')
      .select('encrypted_secret')
      .executeTakeFirstOrThrow();
    expect(other.decrypt(row.encrypted_secret)).toBe('ghp_trim-check-0123456789');
  });

  it('logs one line per request without the bearer token', async () => {
    const gw = await createTestGateway();
    const user = await gw.createUser();
    await gw.request('GET', '/healthz', { as: user });
    const lines = gw
      .logs()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.at(-1)).toMatchObject({
      msg: 'request',
      method: 'GET',
      route: '/healthz',
      status: 200,
    });
    expect(gw.logs()).not.toContain(user.token);
  });
});
