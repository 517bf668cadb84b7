/** The 2026-07-28 `tools/call` the benchmarks send (index.ts, instructions.ts, kernel.ts). */
import { type Agent, request } from 'node:http';

/**
 * The capabilities the client declares (`BENCH_CLIENT_CAPABILITIES`, JSON; none by default). The
 * relays pass them on to the bare server, which checks them on every request: declared as the
 * Gateway declares its own upstream, every side's upstream checks the same (README.md `env44`).
 */
const CLIENT_CAPABILITIES: unknown = (() => {
  const text = process.env.BENCH_CLIENT_CAPABILITIES ?? '{}';
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new Error(
      `BENCH_CLIENT_CAPABILITIES must be a JSON object, such as {} or {"sampling":{}}: got ${text}`,
    );
  }
  return value;
})();

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
        'io.modelcontextprotocol/clientCapabilities': CLIENT_CAPABILITIES,
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

/**
 * One call of `tool` at `url` over `agent` (`token` the bearer when given, `id` the request's):
 * resolves once a 200 answer with structured content is read whole, else rejects with its status
 * and the answer's start.
 */
export function postCall(
  url: URL,
  agent: Agent,
  tool: string,
  token: string | undefined,
  id: number,
): Promise<void> {
  return postPayload(url, agent, tool, token, callBody(id, tool));
}

/** {@link postCall} with a body of the caller's own (`payload`, a `tools/call` of `tool`). */
export function postPayload(
  url: URL,
  agent: Agent,
  tool: string,
  token: string | undefined,
  payload: string,
): Promise<void> {
  const headers = callHeaders(tool, payload, token);
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', agent, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => {
        text += chunk;
      });
      res.on('end', () => {
        if (res.statusCode === 200 && text.includes('"structuredContent"')) resolve();
        else reject(new Error(`${tool}: ${res.statusCode} ${text.slice(0, 300)}`));
      });
    });
    req.on('error', reject);
    req.end(payload);
  });
}
