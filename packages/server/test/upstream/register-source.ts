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
