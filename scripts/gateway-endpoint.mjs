// A user and an MCP endpoint of theirs on a running Gateway, and a 2025 MCP request outside a
// session: what the pack check, the scale benchmark and the tests of real `gateway-server`
// processes all do first, driven by the service secret as an operator's automation is.

/** The headers of a 2025 `POST /mcp` outside a session, for `token`. */
export function mcpHeaders(token) {
  return {
    authorization: `Bearer ${token}`,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2025-11-25',
  };
}

/** One JSON-RPC `message` to `{url}/mcp` with `token`, outside a session: the response. */
export function postMcp(url, token, message) {
  return fetch(`${url}/mcp`, {
    method: 'POST',
    headers: mcpHeaders(token),
    body: JSON.stringify(message),
  });
}

async function expectStatus(response, status, what) {
  if (response.status !== status) {
    throw new Error(
      `${what} answered ${response.status}: ${(await response.text()).slice(0, 300)}`,
    );
  }
  return response.json();
}

/**
 * Signs `user` up on `url` and makes them an MCP endpoint named `endpointName` with
 * `serviceSecret`, first registering `plugin` (a plugin id, mounted under the same namespace)
 * when given. Throws, naming the step and its status, when a step is not answered as expected.
 */
export async function endpointToken(url, serviceSecret, options) {
  const { user, endpointName, plugin } = options;
  const signedUp = await fetch(`${url}/api/auth/sign-up/email`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: url },
    body: JSON.stringify(user),
  });
  const { user: made } = await expectStatus(signedUp, 200, 'sign-up');
  const service = { authorization: `Bearer ${serviceSecret}`, 'content-type': 'application/json' };
  if (plugin !== undefined) {
    const registered = await fetch(`${url}/api/registry/sources`, {
      method: 'POST',
      headers: service,
      body: JSON.stringify({ type: 'plugin', id: plugin, namespace: plugin, pluginId: plugin }),
    });
    await expectStatus(registered, 201, `registering ${plugin}`);
  }
  const endpoint = await fetch(`${url}/api/connections/mcp-endpoints`, {
    method: 'POST',
    headers: service,
    body: JSON.stringify({ userId: made.id, name: endpointName }),
  });
  const { token } = await expectStatus(endpoint, 201, 'making an MCP endpoint');
  return token;
}
