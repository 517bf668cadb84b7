import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createInteractionPlugin } from '#test/mcp/interaction-plugin.js';
import { startMcpGateway } from '#test/mcp/mcp-test-kit.js';

const NAP = { name: 'calls.slow.nap', arguments: { ms: 400 } };

async function start(mcp: { releaseStreamAfterMs?: number } = {}) {
  const gw = await startMcpGateway({ plugins: [createInteractionPlugin()], mcp });
  return { gw, alice: await gw.user({ admin: true }) };
}

/** Opens a 2025-11-25 session with raw HTTP; returns its id. */
async function openSession(url: string, token: string): Promise<string> {
  const response = await fetch(`${url}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'raw', version: '1' },
      },
    }),
  });
  await response.text();
  const id = response.headers.get('mcp-session-id');
  if (id === null) throw new Error('no session');
  return id;
}

/** The SSE events of a response, as `{ id?, retry?, data }`, until the server ends the stream. */
async function events(response: Response) {
  return (await response.text())
    .split('\n\n')
    .filter((block) => block.trim() !== '' && !block.startsWith(':'))
    .map((block) => {
      const field = (name: string) =>
        block
          .split('\n')
          .find((line) => line.startsWith(`${name}:`))
          ?.slice(name.length + 1)
          .trim();
      return { id: field('id'), retry: field('retry'), data: field('data') ?? '' };
    });
}

describe('releasing the SSE stream of a long call (mcp.releaseStreamAfterMs, SEP-1699)', () => {
  it('closes the stream mid-call; a 2025 client reconnects and gets the progress and the result', async () => {
    const { gw, alice } = await start({ releaseStreamAfterMs: 100 });
    const requests: string[] = [];
    const client = new V1Client({ name: 'v1-test', version: '1.0.0' });
    await client.connect(
      new V1Transport(new URL(`${gw.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${alice.mcpToken}` } },
        fetch: (input, init) => {
          const headers = new Headers(init?.headers);
          requests.push(`${init?.method ?? 'GET'} ${headers.get('last-event-id') ?? ''}`.trim());
          return fetch(input, init);
        },
        reconnectionOptions: {
          initialReconnectionDelay: 10,
          maxReconnectionDelay: 100,
          reconnectionDelayGrowFactor: 1,
          maxRetries: 3,
        },
      }),
    );
    onTestFinished(() => client.close());
    const progress: unknown[] = [];
    const result = await client.callTool(NAP, undefined, {
      onprogress: (update) => progress.push(update.message),
    });
    expect(result.content).toEqual([{ type: 'text', text: 'rested' }]);
    expect(progress).toEqual(['Halfway']);
    // The client came back for the rest of the call's stream.
    expect(requests.some((request) => /^GET \S+/.test(request))).toBe(true);
  });

  it("follows the session's negotiated version, not a later request's header", async () => {
    const { gw, alice } = await start({ releaseStreamAfterMs: 100 });
    const sessionId = await openSession(gw.url, alice.mcpToken);
    const headers = {
      authorization: `Bearer ${alice.mcpToken}`,
      'mcp-session-id': sessionId,
      // The conformance suite sends an older version than it negotiated.
      'mcp-protocol-version': '2025-03-26',
    };
    const call = await fetch(`${gw.url}/mcp`, {
      method: 'POST',
      headers: {
        ...headers,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: NAP }),
    });
    const before = await events(call);
    // Only the priming event (an id, a retry interval, no data): the stream closed mid-call.
    expect(before).toEqual([{ id: expect.any(String), retry: '1000', data: '' }]);

    const resumed = await fetch(`${gw.url}/mcp`, {
      headers: { ...headers, accept: 'text/event-stream', 'last-event-id': before[0]?.id ?? '' },
    });
    const reader = resumed.body?.pipeThrough(new TextDecoderStream()).getReader();
    let text = '';
    while (reader !== undefined && !text.includes('"id":1')) {
      const { value, done } = await reader.read();
      if (done) break;
      text += value;
    }
    await reader?.cancel();
    expect(text).toContain('rested');
  });

  it('keeps the stream open by default', async () => {
    const { gw, alice } = await start();
    const sessionId = await openSession(gw.url, alice.mcpToken);
    const call = await fetch(`${gw.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${alice.mcpToken}`,
        'mcp-session-id': sessionId,
        'mcp-protocol-version': '2025-11-25',
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: NAP }),
    });
    const received = await events(call);
    expect(received[0]).toMatchObject({ data: '' });
    expect(received.at(-1)?.data).toContain('rested');
  });
});
