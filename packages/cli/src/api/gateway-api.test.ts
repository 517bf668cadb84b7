import { describe, expect, it } from 'vitest';
import { createTestIo } from '#test/output/test-io.js';
import { cliFailure, createServiceAccount, signInCli, userEnv } from '#test/support/cli-user.js';
import { SERVICE_SECRET, startGateway } from '#test/support/gateway-server.js';
import { makeTempDir } from '#test/support/temp-project.js';
import type { Fetch } from './gateway-api.js';
import { signedInApi } from './signed-in.js';

/** The global fetch, counting requests by path. */
function countingFetch(): { fetch: Fetch; calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    fetch: (input, init) => {
      calls.push(new URL(input instanceof Request ? input.url : input).pathname);
      return fetch(input, init);
    },
  };
}

/** A CI machine: nothing stored, only GATEWAY_URL and GATEWAY_TOKEN (and `extra`). */
async function ciApi(
  url: string,
  token: string,
  extra: Record<string, string> = {},
  counting = countingFetch(),
) {
  const home = await makeTempDir('gateway-ci-');
  const io = createTestIo({
    env: userEnv(home, { GATEWAY_URL: url, GATEWAY_TOKEN: token, ...extra }),
  });
  const api = await signedInApi({ io, keychain: null, fetch: counting.fetch });
  return { api, calls: counting.calls };
}

describe('GatewayApi.userId()', () => {
  it('asks the gateway once whose GATEWAY_TOKEN is, when nothing else says', async () => {
    const { url } = await startGateway();
    const ada = await signInCli(url, 'ada@example.test');
    const { api, calls } = await ciApi(url, ada.token);
    expect(api.session.userId).toBeUndefined();
    await expect(api.userId()).resolves.toBe(ada.userId);
    await expect(api.userId()).resolves.toBe(ada.userId);
    expect(calls).toEqual(['/api/me']);
  });

  it('takes GATEWAY_USER_ID, or the stored sign-in, without asking', async () => {
    const { url } = await startGateway();
    const admin = await signInCli(url, 'admin@example.test');
    const ada = await signInCli(url, 'ada@example.test');
    const { api, calls } = await ciApi(url, admin.token, { GATEWAY_USER_ID: ada.userId });
    await expect(api.userId()).resolves.toBe(ada.userId);

    const counting = countingFetch();
    const stored = await signedInApi({
      ...ada.options({ GATEWAY_TOKEN: ada.token }),
      fetch: counting.fetch,
    });
    await expect(stored.userId()).resolves.toBe(ada.userId);
    expect([...calls, ...counting.calls]).toEqual([]);
  });

  it('refuses a service account key in one line (exit 4)', async () => {
    const { url } = await startGateway();
    const admin = await signInCli(url, 'admin@example.test');
    const { key } = await createServiceAccount(admin, 'nightly-report');
    const { api } = await ciApi(url, key);
    const error = await cliFailure(api.userId());
    expect(error.exitCode).toBe(4);
    expect(error.message).toBe(
      'GATEWAY_TOKEN is a service account key; user commands need a CLI token from `gateway login`',
    );
  });

  it('needs GATEWAY_USER_ID with the service secret, which is no user', async () => {
    const { url } = await startGateway();
    const ada = await signInCli(url, 'ada@example.test');
    const error = await cliFailure((await ciApi(url, SERVICE_SECRET)).api.userId());
    expect(error.exitCode).toBe(4);
    expect(error.message).toBe(
      'GATEWAY_TOKEN is the service secret, which is no user; set GATEWAY_USER_ID to the user to act for, or use a CLI token from `gateway login`',
    );
    const named = await ciApi(url, SERVICE_SECRET, { GATEWAY_USER_ID: ada.userId });
    await expect(named.api.userId()).resolves.toBe(ada.userId);
  });

  it('exits 4 saying GATEWAY_TOKEN was rejected, for a token that matches nothing', async () => {
    const { url } = await startGateway();
    const error = await cliFailure((await ciApi(url, 'gw_cli_not-a-real-token')).api.userId());
    expect(error.exitCode).toBe(4);
    expect(error.message).toBe(
      `The gateway at ${url} rejected GATEWAY_TOKEN; set a valid token, or unset it and run \`gateway login\``,
    );
  });

  it('says to set GATEWAY_USER_ID when the gateway predates GET /api/me', async () => {
    const { url } = await startGateway();
    const ada = await signInCli(url, 'ada@example.test');
    // An older gateway: the real one, with /api/me answering as an unknown route does.
    const older: Fetch = async (input, init) => {
      const path = new URL(input instanceof Request ? input.url : input).pathname;
      return fetch(path === '/api/me' ? `${url}/api/no-such-route` : input, init);
    };
    const { api } = await ciApi(url, ada.token, {}, { fetch: older, calls: [] });
    const error = await cliFailure(api.userId());
    expect(error.exitCode).toBe(4);
    expect(error.message).toBe(
      `The gateway at ${url} cannot say whose GATEWAY_TOKEN is (it has no GET /api/me; an older version?); set GATEWAY_USER_ID to your user id`,
    );
  });
});
