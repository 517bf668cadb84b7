import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createInteractionPlugin } from '#test/mcp/interaction-plugin.js';
import { expectSlowWaitCancelled, recordsOf, startMcpGateway } from '#test/mcp/mcp-test-kit.js';
import { directCallOf } from './direct-call.js';

const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'probe', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

function callBody(name: string, args: unknown, envelope: object = ENVELOPE) {
  return {
    jsonrpc: '2.0',
    id: 7,
    method: 'tools/call',
    params: { name, arguments: args, _meta: envelope },
  };
}

function headersFor(name: string): Record<string, string> {
  return {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': 'tools/call',
    'mcp-name': name,
  };
}

function requestOf(body: unknown, headers: Record<string, string>): Request {
  return new Request('http://127.0.0.1/mcp', {
    method: 'POST',
    headers,
    body: JSON.stringify(body),
  });
}

describe('which 2026-07-28 calls the gateway answers without the SDK (directCallOf)', () => {
  const plain = callBody('demo.echo.say', { text: 'hi' });
  const headers = headersFor('demo.echo.say');

  it('takes the plain call: one request, the envelope only, headers naming the same call', () => {
    expect(directCallOf(requestOf(plain, headers), plain)).toEqual({
      id: 7,
      params: { name: 'demo.echo.say', arguments: { text: 'hi' } },
      envelope: ENVELOPE,
      capabilities: {},
    });
    const noArguments = { ...plain, params: { name: 'demo.echo.say', _meta: ENVELOPE } };
    expect(directCallOf(requestOf(noArguments, headers), noArguments)?.params).toEqual({
      name: 'demo.echo.say',
    });
  });

  const withParams = (params: object) => ({ ...plain, params: { ...plain.params, ...params } });
  const withMeta = (meta: object) => withParams({ _meta: { ...ENVELOPE, ...meta } });
  const leftToTheSdk: [string, unknown, Record<string, string>?][] = [
    ['a batch', [plain], headers],
    ['another method', { ...plain, method: 'tools/list' }, headers],
    ['a notification (no id)', { ...plain, id: undefined }, headers],
    ['a null id', { ...plain, id: null }, headers],
    ['a fractional id', { ...plain, id: 1.5 }, headers],
    ['a key JSON-RPC does not have', { ...plain, extra: 1 }, headers],
    ['a wrong jsonrpc', { ...plain, jsonrpc: '1.0' }, headers],
    ['params that are not an object', { ...plain, params: [] }, headers],
    ['a name that is not a string', withParams({ name: 7 }), headers],
    ['arguments that are not an object', withParams({ arguments: ['hi'] }), headers],
    [
      'an argument named __proto__ (the SDK drops it)',
      withParams({ arguments: JSON.parse('{"text":"hi","__proto__":{"admin":true}}') }),
      headers,
    ],
    ['a retried round (requestState)', withParams({ requestState: 'x' }), headers],
    ['answers of a round (inputResponses)', withParams({ inputResponses: {} }), headers],
    ['a task', withParams({ task: {} }), headers],
    ['no envelope', withParams({ _meta: undefined }), headers],
    ['a progress token', withMeta({ progressToken: 1 }), headers],
    ['a log level', withMeta({ 'io.modelcontextprotocol/logLevel': 'debug' }), headers],
    ['trace context', withMeta({ traceparent: '00-abc' }), headers],
    [
      'another revision',
      withMeta({ 'io.modelcontextprotocol/protocolVersion': '2026-01-01' }),
      headers,
    ],
    [
      'capabilities not by the schema',
      withMeta({ 'io.modelcontextprotocol/clientCapabilities': { sampling: 1 } }),
      headers,
    ],
    [
      'no capabilities',
      withParams({ _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } }),
      headers,
    ],
    [
      'client info not by the schema',
      withMeta({ 'io.modelcontextprotocol/clientInfo': { name: 'x' } }),
      headers,
    ],
    [
      'a protocol header of another revision',
      plain,
      { ...headers, 'mcp-protocol-version': '2025-11-25' },
    ],
    ['no method header', plain, { ...headers, 'mcp-method': '' }],
    ['a name header naming another tool', plain, { ...headers, 'mcp-name': 'demo.files.delete' }],
  ];
  it.each(leftToTheSdk)('leaves %s to the SDK', (_case, body, given = headers) => {
    expect(directCallOf(requestOf(body, given), body)).toBeUndefined();
    // Again: an envelope's verdict is kept by its text (issue 37), the same either way.
    expect(directCallOf(requestOf(body, given), body)).toBeUndefined();
  });

  it('judges an envelope kept by its text as it judged it first (issue 37)', () => {
    const info = (name: unknown) =>
      callBody('demo.echo.say', {}, { ...ENVELOPE, 'io.modelcontextprotocol/clientInfo': name });
    for (let i = 0; i < 2; i += 1) {
      expect(directCallOf(requestOf(plain, headers), plain)).toBeDefined();
      const valid = info({ name: 'kept', version: '1' });
      expect(directCallOf(requestOf(valid, headers), valid)).toBeDefined();
      const invalid = info({ name: 'kept', version: 1 });
      expect(directCallOf(requestOf(invalid, headers), invalid)).toBeUndefined();
      const notAnObject = info('kept');
      expect(directCallOf(requestOf(notAnObject, headers), notAnObject)).toBeUndefined();
    }
  });

  it('judges an envelope equal to the last valid one at once, and any other by its schema (issue 37)', () => {
    const withCapabilities = (capabilities: unknown) =>
      callBody(
        'demo.echo.say',
        {},
        {
          ...ENVELOPE,
          'io.modelcontextprotocol/clientCapabilities': capabilities,
        },
      );
    const judged = (capabilities: unknown) => {
      const body = withCapabilities(capabilities);
      return directCallOf(requestOf(body, headers), body) !== undefined;
    };
    const valid = {
      sampling: {},
      elicitation: { form: {} },
      extensions: { 'a.b/c': { x: [1, 2] } },
    };
    expect(judged(valid)).toBe(true);
    // Changed after it was judged: the verdict kept is of the value as it was, not of this one.
    valid.sampling = 1 as unknown as object;
    expect(judged(valid)).toBe(false);
    expect(
      judged({ sampling: 1, elicitation: { form: {} }, extensions: { 'a.b/c': { x: [1, 2] } } }),
    ).toBe(false);
    const again = {
      extensions: { 'a.b/c': { x: [1, 2] } },
      elicitation: { form: {} },
      sampling: {},
    };
    expect(judged(again)).toBe(true);
    expect(judged({ ...again, sampling: 1 })).toBe(false);
    expect(judged({ ...again, elicitation: 1 })).toBe(false);
    expect(judged({ ...again, roots: 1 })).toBe(false);
    expect(judged({ elicitation: { form: {} }, sampling: 1 })).toBe(false);
    expect(judged({ ...again, extensions: { 'a.b/c': { x: [1, 2, 3] } } })).toBe(true);
    expect(judged([])).toBe(false);
    expect(judged({})).toBe(true);
    expect(judged({ sampling: [] })).toBe(false);
  });
});

describe('a call the gateway answers itself is answered as the SDK answers it', () => {
  /**
   * Posts the same call twice: as it is (answered directly) and with one more `_meta` key that
   * changes nothing for the call (so the SDK's server answers it), and compares the answers.
   */
  async function both(
    url: string,
    token: string,
    name: string,
    args: unknown,
    capabilities: object = {},
  ) {
    const envelope = { ...ENVELOPE, 'io.modelcontextprotocol/clientCapabilities': capabilities };
    const post = async (body: unknown) => {
      const response = await fetch(`${url}/mcp`, {
        method: 'POST',
        headers: { ...headersFor(name), authorization: `Bearer ${token}` },
        body: JSON.stringify(body),
      });
      return {
        status: response.status,
        type: response.headers.get('content-type'),
        body: (await response.json()) as Record<string, unknown>,
      };
    };
    const direct = callBody(name, args, envelope);
    expect(directCallOf(requestOf(direct, headersFor(name)), direct)).toBeDefined();
    const viaSdk = callBody(name, args, { ...envelope, 'example.test/probe': true });
    expect(directCallOf(requestOf(viaSdk, headersFor(name)), viaSdk)).toBeUndefined();
    return { direct: await post(direct), sdk: await post(viaSdk) };
  }

  it('for results, tool failures, unknown tools, tools outside the role and questions', async () => {
    const gw = await startMcpGateway({ plugins: [createInteractionPlugin()] });
    const admin = await gw.user({ admin: true });
    const reader = await gw.user({ roleId: 'reader' });
    const cases: [string, string, unknown, object?][] = [
      [admin.mcpToken, 'demo.echo.say', { text: 'hi' }],
      [admin.mcpToken, 'demo.echo.say', { text: '' }],
      [admin.mcpToken, 'demo.fail.tool_error', {}],
      [admin.mcpToken, 'demo.fail.crash', {}],
      [admin.mcpToken, 'demo.fail.bad_output', {}],
      [admin.mcpToken, 'demo.no.such_tool', {}],
      [reader.mcpToken, 'demo.files.delete', { name: 'a.txt' }],
      [admin.mcpToken, 'calls.orders.ship', {}, { elicitation: {} }],
      // Hostile but well-formed: a name with quotes and a thousand characters, capabilities
      // with keys nobody defined.
      [admin.mcpToken, `demo."${'x'.repeat(1000)}`, {}],
      [admin.mcpToken, 'demo.echo.say', { text: 'hi' }, { 'x.example/whatever': { a: 1 } }],
    ];
    for (const [token, name, args, capabilities] of cases) {
      const { direct, sdk } = await both(gw.url, token, name, args, capabilities);
      // Execution ids and a question's signed state differ by call; everything else is the same.
      const settled = (answer: typeof direct) =>
        JSON.parse(
          JSON.stringify(answer)
            .replace(/[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}/g, '(id)')
            .replace(/"requestState":"[^"]+"/g, '"requestState":"(signed)"'),
        );
      expect(settled(direct), name).toEqual(settled(sdk));
    }
  });
});

/** Waits until `done()` holds, for up to two seconds. */
async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !done(); i += 1) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('a 2026-07-28 call answered directly whose client leaves (issue 37)', () => {
  const slow = callBody('demo.slow.wait', {});

  it('stops the call when the connection closes before the answer', async () => {
    const gw = await startMcpGateway();
    const admin = await gw.user({ admin: true });
    const body = JSON.stringify(slow);
    const request = httpRequest(`${gw.url}/mcp`, {
      method: 'POST',
      headers: {
        ...headersFor('demo.slow.wait'),
        authorization: `Bearer ${admin.mcpToken}`,
        'content-length': String(Buffer.byteLength(body)),
      },
    });
    const answered = new Promise<string>((resolve) => {
      request.on('response', (response) => resolve(String(response.statusCode)));
      request.on('error', (error) => resolve(error.message));
    });
    request.end(body);
    await until(() => gw.gateway.logs().includes('waiting until stopped'));
    expect(gw.gateway.logs()).toContain('waiting until stopped');
    request.destroy();
    expect(await answered).not.toBe('200');
    await expectSlowWaitCancelled(gw);
  });

  it('answers 499 without a body, the call stopped, when an in-process caller aborts', async () => {
    const gw = await startMcpGateway();
    const admin = await gw.user({ admin: true });
    const controller = new AbortController();
    const answer = gw.gateway.fetch(
      new Request(`${gw.url}/mcp`, {
        method: 'POST',
        headers: { ...headersFor('demo.slow.wait'), authorization: `Bearer ${admin.mcpToken}` },
        body: JSON.stringify(slow),
        signal: controller.signal,
      }),
    );
    await until(() => gw.gateway.logs().includes('waiting until stopped'));
    controller.abort(new Error('the caller left'));
    const response = await answer;
    expect(response.status).toBe(499);
    expect(await response.text()).toBe('');
    await expectSlowWaitCancelled(gw);
  });

  it('stops every call in flight, and answers each 499, when the gateway stops', async () => {
    const gw = await startMcpGateway();
    const admin = await gw.user({ admin: true });
    const call = () =>
      gw.gateway.fetch(
        new Request(`${gw.url}/mcp`, {
          method: 'POST',
          headers: { ...headersFor('demo.slow.wait'), authorization: `Bearer ${admin.mcpToken}` },
          body: JSON.stringify(slow),
        }),
      );
    const answers = [call(), call(), call()];
    const waiting = () => gw.gateway.logs().split('waiting until stopped').length - 1;
    await until(() => waiting() === 3);
    expect(waiting()).toBe(3);
    await gw.gateway.stop();
    const statuses = await Promise.all(answers.map(async (answer) => (await answer).status));
    expect(statuses).toEqual([499, 499, 499]);
    expect(gw.state.stopped.map(({ reason }) => reason)).toEqual([
      'cancelled',
      'cancelled',
      'cancelled',
    ]);
  });

  it('stops only the call whose client left, among requests pipelined on one socket (issue 37 review)', async () => {
    const gw = await startMcpGateway();
    const admin = await gw.user({ admin: true });
    const { port } = new URL(gw.url);
    /** An HTTP/1.1 request for `body`, written by hand to go on one socket with others. */
    const raw = (name: string, body: object) => {
      const text = JSON.stringify(body);
      const headers = { ...headersFor(name), authorization: `Bearer ${admin.mcpToken}` };
      const lines = Object.entries(headers).map(([key, value]) => `${key}: ${value}`);
      return `POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\n${lines.join('\r\n')}\r\ncontent-length: ${Buffer.byteLength(text)}\r\n\r\n${text}`;
    };
    const echo = (id: number) => ({ ...callBody('demo.echo.say', { text: `call ${id}` }), id });
    const socket = connect(Number(port), '127.0.0.1');
    let received = '';
    socket.on('data', (chunk) => {
      received += chunk.toString();
    });
    // Two quick calls and a slow one, pipelined in one write: three requests, three answers due
    // on the socket in order.
    socket.write(
      raw('demo.echo.say', echo(1)) +
        raw('demo.echo.say', echo(2)) +
        raw('demo.slow.wait', { ...slow, id: 3 }),
    );
    await until(
      () =>
        (received.match(/HTTP\/1\.1 200/g) ?? []).length === 2 &&
        gw.gateway.logs().includes('waiting until stopped'),
    );
    // Each answer is its own request's, in order.
    const answers = received.split(/HTTP\/1\.1 /).slice(1);
    expect(answers).toHaveLength(2);
    expect(answers[0]).toContain('"id":1');
    expect(answers[0]).toContain('call 1');
    expect(answers[1]).toContain('"id":2');
    expect(answers[1]).toContain('call 2');
    expect(gw.state.stopped).toEqual([]);
    // The client leaves with the slow call running: it alone stops; the two answered calls were
    // recorded as done, not cancelled by a leave heard on their socket after their answers.
    socket.destroy();
    await expectSlowWaitCancelled(gw);
    const echoes = await recordsOf(gw, 'demo.echo.say');
    expect(echoes.map((record) => [record.outcome, record.error])).toEqual([
      ['ok', null],
      ['ok', null],
    ]);
  });
});
