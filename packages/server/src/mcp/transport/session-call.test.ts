/**
 * A 2025 session's plain `tools/call` started without the session's transport (issue 37,
 * session-call.ts), over real HTTP: its answer means what the SDK's does, a call that needs the
 * stream is handed to the transport mid-call, and a client's cancel or the session's end stops
 * it. Approvals, forms, sampling, progress and stream release through the handover are covered
 * by their own tests (approval-paths, forms, sampling, progress, stream-release).
 */
import { describe, expect, it } from 'vitest';
import { createInteractionPlugin } from '#test/mcp/interaction-plugin.js';
import { startMcpGateway } from '#test/mcp/mcp-test-kit.js';
import { openRawSession } from '#test/mcp/raw-session.js';
import { sessionCallOf } from './session-call.js';

/** The JSON-RPC message a POST's answer carries, as JSON or as an event stream's data line. */
async function messageOf(response: Response): Promise<unknown> {
  const text = await response.text();
  if (response.headers.get('content-type') === 'application/json') return JSON.parse(text);
  const data = text.split('\n').find((line) => line.startsWith('data: ') && line.length > 6);
  if (data === undefined) throw new Error(`no message in ${text}`);
  return JSON.parse(data.slice(6));
}

/** A POST answer's headers, but those that differ on every answer (the date, the request id). */
function headersOf(response: Response): Record<string, string> {
  const headers = Object.fromEntries(response.headers);
  delete headers.date;
  delete headers['x-request-id'];
  return headers;
}

async function waitFor(check: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !check(); i += 1) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  expect(check()).toBe(true);
}

describe("a 2025 session's plain tools/call", () => {
  it("answers what the session's transport answers, for a result, an error result and an unknown tool", async () => {
    const gw = await startMcpGateway();
    const alice = await gw.user({ admin: true });
    const { post } = await openRawSession(gw.url, alice.mcpToken);
    const calls = [
      { name: 'demo.echo.say', arguments: { text: 'hi' } },
      { name: 'demo.echo.say', arguments: { wrong: 1 } },
      { name: 'demo.nope.missing', arguments: {} },
      { name: 'demo.echo.say' },
    ];
    for (const [index, params] of calls.entries()) {
      const plain = await post({ jsonrpc: '2.0', id: index, method: 'tools/call', params });
      expect(plain.status).toBe(200);
      expect(plain.headers.get('mcp-session-id')).not.toBeNull();
      // `_meta` in params: not plain, so the SDK's server answers it, through the transport.
      const viaSdk = await post({
        jsonrpc: '2.0',
        id: index,
        method: 'tools/call',
        params: { ...params, _meta: {} },
      });
      // The same headers both ways (issue 37): the JSON body's, none of the event stream's
      // (`Cache-Control`, `X-Accel-Buffering`, `Connection: keep-alive`).
      expect(headersOf(plain), JSON.stringify(params)).toEqual(headersOf(viaSdk));
      expect(plain.headers.get('content-type')).toBe('application/json');
      expect(plain.headers.get('cache-control')).toBeNull();
      const expected = (await messageOf(viaSdk)) as { result?: { _meta?: unknown } };
      const answer = (await messageOf(plain)) as typeof expected;
      // The execution ids differ from call to call; everything else is the same.
      if (expected.result !== undefined) {
        delete expected.result._meta;
        delete answer.result?._meta;
      }
      expect(answer, JSON.stringify(params)).toEqual(expected);
    }
  });

  it('goes to the stream when it sends something, and after the gathering time', async () => {
    const gw = await startMcpGateway({ plugins: [createInteractionPlugin()] });
    const alice = await gw.user({ admin: true });
    const { post } = await openRawSession(gw.url, alice.mcpToken);
    // The session asked for log lines: the plugin's log line needs the stream mid-call.
    await (
      await post({ jsonrpc: '2.0', id: 1, method: 'logging/setLevel', params: { level: 'info' } })
    ).text();
    const logged = await post({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'demo.slow.wait', arguments: {} },
    });
    expect(logged.headers.get('content-type')).toBe('text/event-stream');
    expect(logged.headers.get('cache-control')).toBe('no-cache, no-transform');
    const reader = (logged.body as ReadableStream<Uint8Array>).getReader();
    let seen = '';
    while (!seen.includes('waiting until stopped')) {
      const read = await reader.read();
      if (read.done) break;
      seen += new TextDecoder().decode(read.value);
    }
    expect(seen).toMatch(/^id: /);
    expect(seen).toContain('notifications/message');
    await reader.cancel();

    const slow = await post({
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: { name: 'calls.slow.nap', arguments: { ms: 300 } },
    });
    expect(slow.headers.get('content-type')).toBe('text/event-stream');
    expect(slow.headers.get('cache-control')).toBe('no-cache, no-transform');
    expect(await slow.text()).toContain('rested');
  });

  it('is stopped by the client cancelling it, and by the session ending', async () => {
    const gw = await startMcpGateway();
    const alice = await gw.user({ admin: true });
    const { post, sessionId } = await openRawSession(gw.url, alice.mcpToken);
    const waiting = () => gw.gateway.logs().split('waiting until stopped').length - 1;

    const cancelled = post({
      jsonrpc: '2.0',
      id: 'c',
      method: 'tools/call',
      params: { name: 'demo.slow.wait', arguments: {} },
    });
    await waitFor(() => waiting() === 1);
    const cancel = await post({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 'c', reason: 'changed my mind' },
    });
    expect(cancel.status).toBe(202);
    await waitFor(() => gw.state.stopped.length === 1);
    expect((await cancelled).status).toBe(200);

    const ended = post({
      jsonrpc: '2.0',
      id: 'd',
      method: 'tools/call',
      params: { name: 'demo.slow.wait', arguments: {} },
    });
    await waitFor(() => waiting() === 2);
    const closed = await fetch(`${gw.url}/mcp`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${alice.mcpToken}`, 'mcp-session-id': sessionId },
    });
    expect(closed.status).toBe(200);
    await waitFor(() => gw.state.stopped.length === 2);
    await (await ended).body?.cancel();
    await gw.gateway.services.executions.flush();
    const rows = await gw.gateway.services.database.db
      .selectFrom('executions')
      .select(['outcome', 'error'])
      .where('tool_path', '=', 'demo.slow.wait')
      .execute();
    expect(rows).toEqual([
      { outcome: 'error', error: 'Cancelled by the client' },
      { outcome: 'error', error: 'Cancelled by the client' },
    ]);
  });

  it('stops the one of two calls at once that the client cancels, and the other when the session ends', async () => {
    const gw = await startMcpGateway();
    const alice = await gw.user({ admin: true });
    const { post, sessionId } = await openRawSession(gw.url, alice.mcpToken);
    const waiting = () => gw.gateway.logs().split('waiting until stopped').length - 1;
    const slow = (id: string) =>
      post({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'demo.slow.wait' } });

    const kept = slow('kept');
    const cancelled = slow('cancelled');
    await waitFor(() => waiting() === 2);
    await post({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 'cancelled', reason: 'the second one' },
    });
    await waitFor(() => gw.state.stopped.length === 1);
    expect((await cancelled).status).toBe(200);
    // The other call runs on until its session ends.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(gw.state.stopped.length).toBe(1);
    await fetch(`${gw.url}/mcp`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${alice.mcpToken}`, 'mcp-session-id': sessionId },
    });
    await waitFor(() => gw.state.stopped.length === 2);
    await (await kept).body?.cancel();
  });
});

describe('sessionCallOf', () => {
  const request = (accept = 'application/json, text/event-stream') =>
    new Request('http://gateway.test/mcp', {
      method: 'POST',
      headers: { accept, 'mcp-protocol-version': '2025-11-25' },
    });
  const call = {
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'a', arguments: { x: 1 } },
  };

  it('takes a plain call', () => {
    expect(sessionCallOf(request(), call)).toEqual({ id: 1, params: call.params });
    expect(sessionCallOf(request(), { ...call, params: { name: 'a' } })).toEqual({
      id: 1,
      params: { name: 'a' },
    });
  });

  it('takes any Accept that names both types, as the transport does', () => {
    for (const accept of [
      'text/event-stream, application/json',
      'application/json;q=0.9, text/event-stream',
      'application/json,text/event-stream',
    ]) {
      expect(sessionCallOf(request(accept), call), accept).toEqual({ id: 1, params: call.params });
    }
    expect(sessionCallOf(request('text/event-stream'), call)).toBeUndefined();
  });

  it('leaves everything else to the transport', () => {
    const odd: [Request, unknown][] = [
      [request('application/json'), call],
      [request(), { ...call, method: 'tools/list' }],
      [request(), { ...call, params: { ...call.params, _meta: { progressToken: 1 } } }],
      [request(), { ...call, params: { ...call.params, task: {} } }],
      [request(), { ...call, params: { name: 7 } }],
      [request(), { ...call, params: { name: 'a', arguments: [1] } }],
      [request(), { ...call, params: { name: 'a', arguments: JSON.parse('{"__proto__":1}') } }],
      [request(), { ...call, params: undefined }],
      [request(), [call]],
    ];
    for (const [req, body] of odd) {
      expect(sessionCallOf(req, body), JSON.stringify(body)).toBeUndefined();
    }
  });
});
