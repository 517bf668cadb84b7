/**
 * The leak check itself: what `leak-check.setup.ts` greps at the end of every test file must
 * include the output of the file and the log lines of every leak-checked gateway, and its list
 * of secrets must include what such a gateway is sent, stores and hands out, over a socket too.
 */
import { describe, expect, it, onTestFinished } from 'vitest';
import {
  capturedLogLines,
  findLeaks,
  knownSecrets,
  rememberSecretFieldsOfJson,
} from './known-secrets.js';
import { createLeakCheckedGateway } from './leak-checked-gateway.js';

const captured = () => capturedLogLines().join('');

describe('the leak check', () => {
  it('sees what the test file writes to stdout, stderr and the console', () => {
    const marker = `marker-${crypto.randomUUID()}`;
    process.stdout.write(`${marker}-stdout\n`);
    process.stderr.write(Buffer.from(`${marker}-stderr\n`));
    console.log('%s-console', marker);
    console.warn({ marker: `${marker}-warn` });
    for (const suffix of ['-stdout', '-stderr', '-console', '-warn']) {
      expect(captured()).toContain(`${marker}${suffix}`);
    }
  });

  it('knows the secrets of a gateway over a socket, and sees its log lines', async () => {
    const authSecret = `leak-auth-${crypto.randomUUID()}`;
    const serviceApiSecret = `leak-service-${crypto.randomUUID()}`;
    const apiKey = `leak-env-${crypto.randomUUID()}`;
    const gateway = await createLeakCheckedGateway({
      databaseUrl: ':memory:',
      configFile: false,
      env: { FORECAST_API_KEY: apiKey },
      authSecret,
      serviceApiSecret,
      host: '127.0.0.1',
      port: 0,
    });
    onTestFinished(() => gateway.stop());
    const { url } = await gateway.start();
    const headers = {
      authorization: `Bearer ${serviceApiSecret}`,
      'content-type': 'application/json',
    };

    // Sent as text/plain, refused: still remembered, since it was sent.
    const refused = `leak-refused-${crypto.randomUUID()}`;
    await fetch(`${url}/api/policy/roles`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'text/plain' },
      body: JSON.stringify({ secret: refused }),
    });
    const user = crypto.randomUUID();
    await gateway.services.database.db
      .insertInto('user')
      .values({
        id: user,
        name: 'Leak',
        email: `${user}@example.test`,
        emailVerified: true,
        image: null,
        createdAt: new Date().toISOString(),
        updatedAt: new Date().toISOString(),
      })
      .execute();
    const stored = `leak-stored-${crypto.randomUUID()}`;
    const connection = await fetch(`${url}/api/connections`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        userId: user,
        toolId: 'github',
        instanceName: 'Work',
        secret: stored,
      }),
    });
    expect(connection.status).toBe(201);
    const endpoint = await fetch(`${url}/api/connections/mcp-endpoints`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ userId: user, name: 'laptop' }),
    });
    const { token } = (await endpoint.json()) as { token: string };

    expect(knownSecrets()).toEqual(
      expect.arrayContaining([authSecret, serviceApiSecret, apiKey, refused, stored, token]),
    );
    // One log line per request, none of them holding a secret.
    expect(captured()).toContain('"route":"/api/connections/mcp-endpoints"');
    expect(findLeaks(capturedLogLines())).toEqual([]);
  });

  it('finds a secret in the captured output', () => {
    const secret = `leak-found-${crypto.randomUUID()}`;
    expect(findLeaks([`a line holding ${secret} by mistake`], [secret])).toEqual([
      {
        secret: `${secret.slice(0, 4)}…${secret.slice(-4)} (${secret.length} chars)`,
        where: expect.stringContaining('<SECRET>'),
      },
    ]);
  });

  it('finds a secret in a large text searched before, and each copy of a text once', () => {
    const secret = `leak-large-${crypto.randomUUID()}`;
    const other = `leak-other-${crypto.randomUUID()}`;
    const page = (inside: string) => `<html>${'x'.repeat(10_000)}${inside}</html>`;
    expect(findLeaks([page('')], [secret, other])).toEqual([]);
    // The same large text again, now holding the secret: a text known clean stays so by content.
    expect(findLeaks([page(secret)], [secret, other])).toHaveLength(1);
    expect(findLeaks([page(''), page(secret)], [other, secret])).toHaveLength(1);
    expect(findLeaks([page(''), page('')], [secret])).toEqual([]);
    expect(findLeaks([page(secret), page(secret)], [secret])).toHaveLength(1);
  });

  it('remembers secret-named fields of JSON, spelled with escapes too', () => {
    const plain = `leak-plain-${crypto.randomUUID()}`;
    const escaped = `leak-escaped-${crypto.randomUUID()}`;
    const large = `leak-large-${crypto.randomUUID()}`;
    rememberSecretFieldsOfJson(JSON.stringify({ a: [{ secret: plain }] }));
    rememberSecretFieldsOfJson(`{"\\u0074oken":"${escaped}"}`);
    // A large document read twice (the second time from what was read the first) still counts.
    const document = JSON.stringify({ padding: 'x'.repeat(10_000), nested: { key: large } });
    rememberSecretFieldsOfJson(document);
    rememberSecretFieldsOfJson(document);
    rememberSecretFieldsOfJson(`[${'['.repeat(1000)}${']'.repeat(1000)}]`);
    expect(knownSecrets()).toEqual(expect.arrayContaining([plain, escaped, large]));
  });
});
