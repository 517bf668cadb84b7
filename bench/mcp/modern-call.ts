/** The 2026-07-28 `tools/call` the benchmarks send (index.ts, instructions.ts). */

/** The request's body: the echo tool called with `hello`, the envelope in `_meta`. */
export function callBody(id: number, tool: string): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: {
      name: tool,
      arguments: { text: 'hello' },
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1.0.0' },
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    },
  });
}

/** The request's headers for `payload` (its body), with `token` as the bearer when given. */
export function callHeaders(
  tool: string,
  payload: string,
  token: string | undefined,
): Record<string, string> {
  const headers: Record<string, string> = {
    accept: 'application/json, text/event-stream',
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(payload)),
    'mcp-method': 'tools/call',
    'mcp-name': tool,
    'mcp-protocol-version': '2026-07-28',
  };
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  return headers;
}
