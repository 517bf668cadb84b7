import { describe, expect, it } from 'vitest';
import { createTestGateway } from '#test/support/test-gateway.js';

// What reaches the log sink of a running gateway: the secrets it was configured with and the
// token shapes of the providers it talks to never do.
describe('log redaction of a gateway', () => {
  it('scrubs every *_API_KEY and *_CLIENT_SECRET value from the environment, used or not', async () => {
    const env = {
      WEATHER_API_KEY: 'weather-server-key-0123456789',
      MY_TOOL_API_KEY: 'my-tool-key-abcdef0123',
      ACME_CLIENT_SECRET: 'acme-client-secret-0123456789',
      GITHUB_CLIENT_ID: 'github-client',
      GITHUB_CLIENT_SECRET: 'github-client-secret-0123456789',
    };
    const gw = await createTestGateway({ env });

    gw.services.logger.warn('upstream said', {
      detail: `keys ${env.WEATHER_API_KEY}, ${env.MY_TOOL_API_KEY}; clients ${env.ACME_CLIENT_SECRET} ${env.GITHUB_CLIENT_SECRET}`,
    });

    const logs = gw.logs();
    expect(logs).toContain('upstream said');
    for (const secret of [
      env.WEATHER_API_KEY,
      env.MY_TOOL_API_KEY,
      env.ACME_CLIENT_SECRET,
      env.GITHUB_CLIENT_SECRET,
    ])
      expect(logs).not.toContain(secret);
    expect(logs).toContain('keys [redacted], [redacted]; clients [redacted] [redacted]');
    // Not a secret: the client id stays readable.
    gw.services.logger.info('client', { note: env.GITHUB_CLIENT_ID });
    expect(gw.logs()).toContain('"note":"github-client"');
  });

  it('scrubs Slack and Linear tokens and the password of a database URL', async () => {
    const gw = await createTestGateway();
    const slack = 'xoxe.xoxp-1-Mi0yLTIxNDEwMjk0NzItNjkxMjAyNjQ5NzI4';
    const linear = 'lin_oauth_8f2c0a9d4b6e1f3a5c7d9e0b2a4c6e8f';

    gw.services.logger.error('refresh failed', {
      error: `token ${slack} and ${linear} refused by postgres://gw:s3cret-db-pass@db.example:5432/gw`,
    });

    const logs = gw.logs();
    expect(logs).not.toContain(slack);
    expect(logs).not.toContain(linear);
    expect(logs).not.toContain('s3cret-db-pass');
    expect(logs).toContain(
      'token [redacted] and [redacted] refused by postgres://gw:[redacted]@db.example:5432/gw',
    );
  });

  it("registers the database URL's password as a secret, so it is scrubbed outside the URL too", async () => {
    const gw = await createTestGateway({
      env: { DATABASE_URL: 'postgres://gw:pa%24%24word-0123@db.example:5432/gw' },
      // The test gateway still runs on SQLite; only the environment names the URL.
      databaseUrl: ':memory:',
    });
    gw.services.logger.warn('auth failed', { detail: 'password pa$$word-0123 rejected' });
    expect(gw.logs()).not.toContain('pa$$word-0123');
    expect(gw.logs()).toContain('password [redacted] rejected');
  });
});
