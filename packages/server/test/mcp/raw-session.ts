import { INITIALIZE } from './mcp-test-kit.js';

/**
 * A 2025-11-25 session opened with raw HTTP (no SDK client), for tests that look at the exact
 * answers of the session transport: its id, and a POST of a JSON-RPC `body` in it.
 *
 * @example
 * const { post } = await openRawSession(gw.url, alice.mcpToken);
 * const answer = await post({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
 */
export async function openRawSession(
  url: string,
  token: string,
): Promise<{ sessionId: string; post: (body: unknown) => Promise<Response> }> {
  const headers = {
    authorization: `Bearer ${token}`,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
  };
  const opened = await fetch(`${url}/mcp`, {
    method: 'POST',
    headers,
    body: JSON.stringify(INITIALIZE),
  });
  await opened.text();
  const sessionId = opened.headers.get('mcp-session-id');
  if (sessionId === null) throw new Error(`no session was opened (HTTP ${opened.status})`);
  const post = (body: unknown) =>
    fetch(`${url}/mcp`, {
      method: 'POST',
      headers: { ...headers, 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify(body),
    });
  await (await post({ jsonrpc: '2.0', method: 'notifications/initialized' })).text();
  return { sessionId, post };
}
