import { expect } from 'vitest';
import { type McpTestGateway, startMcpGateway } from '../mcp/mcp-test-kit.js';
import { TEST_SERVICE_SECRET } from '../support/test-gateway.js';

/**
 * `POST /api/registry/sources` with the test gateways' service secret; the answer as it came. An
 * `mcp` source without `approval` is registered with `listed`.
 */
export function registerSource(
  gatewayUrl: string,
  body: Record<string, unknown>,
): Promise<Response> {
  return fetch(`${gatewayUrl}/api/registry/sources`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${TEST_SERVICE_SECRET}`,
      'content-type': 'application/json',
    },
    // The test upstreams' tools carry no annotations, which under the default `hints` mode would
    // all ask for approval: tests of approval say their mode.
    body: JSON.stringify(
      body.type === 'mcp' && body.approval === undefined ? { ...body, approval: 'listed' } : body,
    ),
  });
}

/**
 * A gateway (private upstream addresses allowed, as test upstreams listen on 127.0.0.1) serving
 * the upstream at `url` as source `id` in namespace `id`, with `settings` (an `approval` mode,
 * relay switches); the test fails unless the registration answers `201`.
 */
export async function gatewayServing(
  url: string,
  id: string,
  settings: Record<string, unknown> = {},
): Promise<McpTestGateway> {
  const gw = await startMcpGateway({ env: { GATEWAY_UPSTREAM_ALLOW_PRIVATE: 'true' } });
  const registered = await registerSource(gw.url, {
    type: 'mcp',
    id,
    namespace: id,
    url,
    ...settings,
  });
  expect(registered.status).toBe(201);
  return gw;
}
