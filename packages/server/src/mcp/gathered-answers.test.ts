import { describe, expect, it } from 'vitest';
import { createInteractionPlugin } from '#test/mcp/interaction-plugin.js';
import { startMcpGateway } from '#test/mcp/mcp-test-kit.js';
import { openRawSession } from '#test/mcp/raw-session.js';
import { isPlainLegacyRequest } from './transport/session-http.js';

describe('the answer to a 2025 session POST', () => {
  it('is the one JSON message when the call ends at once, an event stream when it takes longer or sends more', async () => {
    const gw = await startMcpGateway({ plugins: [createInteractionPlugin()] });
    const alice = await gw.user({ admin: true });
    const { post } = await openRawSession(gw.url, alice.mcpToken);

    // A call that ends within the gathering time (50 ms); on a loaded machine one may not, so
    // the first of a few that does is read.
    let quick = await post({
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name: 'calls.slow.nap', arguments: { ms: 0 } },
    });
    for (
      let tries = 1;
      tries < 5 && quick.headers.get('content-type') !== 'application/json';
      tries++
    ) {
      await quick.text();
      quick = await post({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'calls.slow.nap', arguments: { ms: 0 } },
      });
    }
    expect(quick.status).toBe(200);
    expect(quick.headers.get('content-type')).toBe('application/json');
    expect(quick.headers.get('mcp-session-id')).not.toBeNull();
    const answer = (await quick.json()) as { id: number; result: { content: unknown[] } };
    expect(answer.id).toBe(7);
    expect(answer.result.content).toEqual([{ type: 'text', text: 'rested' }]);

    // Past the gathering time: streamed, as before (priming event, then the answer).
    const slow = await post({
      jsonrpc: '2.0',
      id: 8,
      method: 'tools/call',
      params: { name: 'calls.slow.nap', arguments: { ms: 300 } },
    });
    expect(slow.headers.get('content-type')).toBe('text/event-stream');
    const events = await slow.text();
    expect(events).toMatch(/^id: /);
    expect(events).toContain('"id":8');
    expect(events).toContain('rested');

    // Progress asked for: the stream carries a notification besides the answer, and stays one.
    const noisy = await post({
      jsonrpc: '2.0',
      id: 9,
      method: 'tools/call',
      params: { name: 'calls.slow.nap', arguments: { ms: 2 }, _meta: { progressToken: 'p' } },
    });
    expect(noisy.headers.get('content-type')).toBe('text/event-stream');
    const both = await noisy.text();
    expect(both).toContain('notifications/progress');
    expect(both).toContain('"id":9');
  });
});

describe('isPlainLegacyRequest', () => {
  const request = (version?: string) =>
    new Request('http://gateway.test/mcp', {
      method: 'POST',
      headers: version === undefined ? {} : { 'mcp-protocol-version': version },
    });
  const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'a' } };

  it('says yes to an ordinary 2025 request only', () => {
    expect(isPlainLegacyRequest(request('2025-11-25'), call)).toBe(true);
    expect(isPlainLegacyRequest(request(), { ...call, id: 'x', params: undefined })).toBe(true);
  });

  it('leaves everything else to the SDK: envelopes, modern or odd headers, odd shapes', () => {
    const odd: [string | undefined, unknown][] = [
      ['2026-07-28', call],
      ['2099-01-01', call],
      [undefined, { ...call, params: { name: 'a', _meta: {} } }],
      [
        undefined,
        {
          ...call,
          params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } },
        },
      ],
      [undefined, [call]],
      [undefined, { ...call, id: null }],
      [undefined, { ...call, id: 1.5 }],
      [undefined, { ...call, jsonrpc: '1.0' }],
      [undefined, { ...call, method: '' }],
      [undefined, { ...call, extra: true }],
      [undefined, { ...call, params: [1] }],
      [undefined, { ...call, params: null }],
      [undefined, { jsonrpc: '2.0', id: 1, result: {} }],
      [undefined, null],
      [undefined, 'tools/call'],
    ];
    for (const [version, body] of odd) {
      expect(isPlainLegacyRequest(request(version), body), JSON.stringify(body)).toBe(false);
    }
  });
});
