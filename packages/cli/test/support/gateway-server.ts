import type { Plugin } from '@gateway/sdk';
import { createLeakCheckedGateway, type ServedGateway } from '@gateway/server/testing';
import { onTestFinished } from 'vitest';

// Test-only: a real gateway over HTTP on 127.0.0.1, through @gateway/server's public API.

/** The service secret of test gateways (the registry routes take it). */
export const SERVICE_SECRET = 'cli-test-service-secret-0123456789';

/** A running gateway and its base URL. */
export interface RunningGateway {
  url: string;
  gateway: ServedGateway;
}

/**
 * Starts a gateway on in-memory SQLite at a free port, stopped when the test finishes.
 * `env` configures providers (`GCP_CLIENT_ID`, ...) as the server's environment would.
 */
export async function startGateway(
  options: { plugins?: Plugin[]; env?: Record<string, string> } = {},
): Promise<RunningGateway> {
  // Its log lines and secrets go to the leak check of the whole test run.
  const gateway = await createLeakCheckedGateway({
    plugins: options.plugins ?? [],
    env: options.env ?? {},
    configFile: false,
    databaseUrl: ':memory:',
    authSecret: 'cli-test-auth-secret-0123456789abcdef',
    serviceApiSecret: SERVICE_SECRET,
    port: 0,
  });
  onTestFinished(() => gateway.stop());
  const { url } = await gateway.start();
  return { url, gateway };
}

/** Registers `plugin` under its id (`POST /api/registry/sources`), so its tools go live. */
export async function registerPlugin(url: string, pluginId: string): Promise<void> {
  const response = await fetch(`${url}/api/registry/sources`, {
    method: 'POST',
    headers: { authorization: `Bearer ${SERVICE_SECRET}`, 'content-type': 'application/json' },
    body: JSON.stringify({ type: 'plugin', id: pluginId, namespace: pluginId, pluginId }),
  });
  if (response.status !== 201) {
    throw new Error(
      `registering ${pluginId} answered ${response.status}: ${await response.text()}`,
    );
  }
}
