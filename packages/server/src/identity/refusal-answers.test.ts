import { describe, expect, it } from 'vitest';
import { createTestGateway } from '../../test/support/test-gateway.js';

/**
 * The front door's refusals are `Refusal`s since issue 36 ("Domain errors, mapped once"); their
 * answers stay exactly what they were as `HttpError`s: status, body and the header that goes
 * with them, over real HTTP.
 */
describe("the authenticator's refusals, answered over HTTP (issue 36)", () => {
  async function listening() {
    // A stopped clock: 30 wrong tokens taking over 2 s under load would refill the limit's bucket.
    const stopped = Date.now();
    const gw = await createTestGateway(
      {
        baseUrl: undefined,
        host: '127.0.0.1',
        port: 0,
        env: { GATEWAY_TRUSTED_PROXIES: '127.0.0.1' },
      },
      { rateLimitClock: () => stopped },
    );
    const { url } = await gw.start();
    const me = async (headers: Record<string, string>) => {
      const res = await fetch(`${url}/api/me`, { headers });
      return { status: res.status, headers: res.headers, body: await res.json() };
    };
    return { gw, me };
  }

  it('answers 401 with a Bearer challenge, saying invalid_token once a token was sent', async () => {
    const { me } = await listening();

    const malformed = await me({ authorization: 'Basic dXNlcjpwYXNz' });
    expect(malformed.status).toBe(401);
    expect(malformed.body).toEqual({
      error: {
        code: 'unauthorized',
        message: 'Send the credential as Authorization: Bearer <token>',
      },
    });
    expect(malformed.headers.get('www-authenticate')).toBe('Bearer realm="gateway"');

    const wrong = await me({ authorization: 'Bearer gw_cli_wrong' });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual({
      error: { code: 'unauthorized', message: 'The bearer token is invalid, expired or revoked' },
    });
    expect(wrong.headers.get('www-authenticate')).toBe(
      'Bearer realm="gateway", error="invalid_token", error_description="The bearer token is invalid, expired or revoked"',
    );
    expect(wrong.headers.get('retry-after')).toBeNull();

    const mcpToken = await me({ authorization: 'Bearer gw_mcp_elsewhere' });
    expect(mcpToken.body).toEqual({
      error: {
        code: 'unauthorized',
        message: 'An MCP endpoint token works only at /mcp; the API takes a CLI token',
      },
    });
  });

  it('answers 429 with Retry-After past the failed-credential limit, the seconds as in its message', async () => {
    const { me } = await listening();
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) {
      statuses.push((await me({ authorization: 'Bearer gw_cli_wrong' })).status);
    }
    expect(new Set(statuses)).toEqual(new Set([401]));

    const limited = await me({ authorization: 'Bearer gw_cli_wrong' });
    expect(limited.status).toBe(429);
    const retryAfter = limited.headers.get('retry-after');
    expect(retryAfter).toMatch(/^\d+$/);
    expect(limited.body).toEqual({
      error: {
        code: 'rate_limited',
        message: `Too many wrong credentials from your address; retry in ${retryAfter}s`,
      },
    });
    expect(limited.headers.get('www-authenticate')).toBeNull();
  });

  it('answers 400 for a forwarded client address it cannot read', async () => {
    const { me } = await listening();
    const unreadable = await me({
      authorization: 'Bearer gw_cli_wrong',
      'x-forwarded-for': 'not-an-address',
    });
    expect(unreadable.status).toBe(400);
    expect(unreadable.body).toEqual({
      error: {
        code: 'bad_request',
        message: 'The client address your proxy forwarded (X-Forwarded-For) cannot be read',
      },
    });
    expect(unreadable.headers.get('www-authenticate')).toBeNull();
  });
});
