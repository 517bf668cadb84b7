/**
 * The leak check itself (`test/support/known-secrets.ts`, `test/support/leak-check.setup.ts`): what the
 * test gateway remembers, and that a leak in a log line is found.
 */
import { describe, expect, it } from 'vitest';
import {
  capturedLogLines,
  findLeaks,
  forgetSecretsAndLogs,
  knownSecrets,
  rememberSecret,
} from '#test/support/known-secrets.js';
import {
  createTestGateway,
  TEST_AUTH_SECRET,
  TEST_SERVICE_SECRET,
} from '#test/support/test-gateway.js';

describe('the leak check', () => {
  it('remembers what a test gateway sends and hands out, and keeps its log lines', async () => {
    const gw = await createTestGateway({ env: { FORECAST_API_KEY: 'server-key-0123456789' } });
    const alice = await gw.createUser();
    const secret = `zebra-horse-${crypto.randomUUID()}`;
    await gw.request('POST', '/api/connections', {
      as: alice,
      body: { userId: alice.id, toolId: 'github', instanceName: 'Work', secret },
    });
    const created = await gw.request('POST', '/api/connections/mcp-endpoints', {
      as: alice,
      body: { userId: alice.id, name: 'laptop' },
    });
    const { token } = (await created.json()) as { token: string };
    await gw.request('GET', '/api/policy/roles', {
      headers: { authorization: `Bearer gw_cli_${'x1'.repeat(20)}` },
    });

    expect(knownSecrets()).toEqual(
      expect.arrayContaining([
        TEST_AUTH_SECRET,
        TEST_SERVICE_SECRET,
        'server-key-0123456789',
        alice.token,
        secret,
        token,
        `gw_cli_${'x1'.repeat(20)}`,
      ]),
    );
    expect(capturedLogLines().join('')).toContain(gw.logs());
    expect(findLeaks(capturedLogLines())).toEqual([]);
  });

  it('finds a secret in a log line, wherever in the line it is', async () => {
    const gw = await createTestGateway();
    const secret = `zebra-horse-${crypto.randomUUID()}`;
    rememberSecret(secret);
    // A field the redactor does not know by name, and a value no pattern of it matches.
    gw.services.logger.info('careless', { note: `value=${secret.slice(0, -2)}` });
    expect(findLeaks(capturedLogLines())).toEqual([
      {
        secret: `${secret.slice(0, 4)}…${secret.slice(-4)} (${secret.length} chars)`,
        where: expect.stringContaining('"note":"value=<SECRET>'),
      },
    ]);
    // This file's leak is on purpose: the setup file's check must not fail on it.
    forgetSecretsAndLogs();
  });

  it('ignores values too short or too plain to grep for', () => {
    for (const value of ['abcd1234', 'aaaaaaaaaaaaaaa', 'hasOwnProperty', ' padded-secret-123 ']) {
      rememberSecret(value);
      expect(knownSecrets()).not.toContain(value);
    }
  });
});
