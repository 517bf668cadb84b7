import { TEST_SERVICE_SECRET } from '../support/test-gateway.js';

/** `POST /api/registry/sources` with the test gateways' service secret; the answer as it came. */
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
    body: JSON.stringify(body),
  });
}
