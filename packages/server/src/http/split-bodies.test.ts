import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { type McpTestGateway, type McpTestUser, startMcpGateway } from '#test/mcp/mcp-test-kit.js';

// Bodies sent in pieces over a raw connection, each piece its own write after a pause, so the
// server reads them apart: the strict body reader counts bytes as they come and decodes the whole
// as UTF-8 only once it is all there, on `/mcp` and on `/api/*` alike. A character split between
// pieces is read as itself; a body that ends inside one is a 4xx, never a 5xx.

const stops: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const stop of stops.splice(0)) await stop();
});

let shared: Promise<{ mcp: McpTestGateway; user: McpTestUser; admin: McpTestUser }> | undefined;

function gateway() {
  shared ??= (async () => {
    const mcp = await startMcpGateway({ stopLater: (stop) => stops.unshift(stop) });
    return {
      mcp,
      user: await mcp.user({ roleId: 'reader' }),
      admin: await mcp.user({ admin: true }),
    };
  })();
  return shared;
}

/** Writes each of `parts` on one new connection, a pause between them; all the server sends. */
async function sendInParts(url: string, parts: Buffer[]): Promise<string> {
  const { hostname, port } = new URL(url);
  const socket = connect({ host: hostname, port: Number(port) });
  socket.setNoDelay(true);
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  const closed = new Promise<void>((resolve) => {
    socket.once('close', () => resolve());
    socket.once('error', () => resolve());
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  for (const part of parts) {
    socket.write(part);
    await sleep(30);
  }
  await closed;
  return Buffer.concat(chunks).toString('utf8');
}

function statuses(text: string): number[] {
  return [...text.matchAll(/HTTP\/1\.1 (\d{3})/g)].map((match) => Number(match[1]));
}

const EURO = Buffer.from('€'); // three bytes: e2 82 ac

/** An echo call's body saying `before` + € + `after`, cut inside the €'s bytes. */
function echoBody(text: Buffer[]): Buffer[] {
  const call = (says: string) =>
    JSON.stringify({
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: {
        name: 'demo.echo.say',
        arguments: { text: says },
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 'split', version: '1.0.0' },
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    });
  const [open, close] = call('\u0000').split('\\u0000');
  return [Buffer.from(open ?? ''), ...text, Buffer.from(close ?? '')];
}

function mcpHead(host: string, token: string, framing: string): string {
  return [
    'POST /mcp HTTP/1.1',
    `Host: ${host}`,
    'Content-Type: application/json',
    'Accept: application/json, text/event-stream',
    `Authorization: Bearer ${token}`,
    'Mcp-Protocol-Version: 2026-07-28',
    'Mcp-Method: tools/call',
    'Mcp-Name: demo.echo.say',
    'Connection: close',
    framing,
    '',
    '',
  ].join('\r\n');
}

/** `body` split at byte `at`, sent with its length declared. */
function withLength(head: (framing: string) => string, body: Buffer, at: number): Buffer[] {
  return [
    Buffer.from(head(`Content-Length: ${body.length}`)),
    body.subarray(0, at),
    body.subarray(at),
  ];
}

/** `body` split at byte `at`, each side its own chunk. */
function chunked(head: (framing: string) => string, body: Buffer, at: number): Buffer[] {
  const chunk = (bytes: Buffer) =>
    Buffer.concat([Buffer.from(`${bytes.length.toString(16)}\r\n`), bytes, Buffer.from('\r\n')]);
  return [
    Buffer.from(head('Transfer-Encoding: chunked')),
    chunk(body.subarray(0, at)),
    chunk(body.subarray(at)),
    Buffer.from('0\r\n\r\n'),
  ];
}

describe('a body sent in pieces', () => {
  it.each([
    ['with its length declared', withLength],
    ['chunked', chunked],
  ])('reaches an MCP tool whole, a character split between pieces (%s)', async (_how, frame) => {
    const { mcp, user } = await gateway();
    const body = Buffer.concat(echoBody([Buffer.from('a'), EURO, Buffer.from('b')]));
    const at = body.indexOf(EURO) + 1;
    const head = (framing: string) => mcpHead(new URL(mcp.url).host, user.mcpToken, framing);
    const text = await sendInParts(mcp.url, frame(head, body, at));
    expect(statuses(text)).toEqual([200]);
    expect(text).toContain('a€b');
  });

  it.each([
    ['with its length declared', withLength],
    ['chunked', chunked],
  ])('that ends inside a character is a JSON-RPC parse error on /mcp (%s)', async (_how, frame) => {
    const { mcp, user } = await gateway();
    const body = Buffer.concat(echoBody([Buffer.from('a'), EURO.subarray(0, 2)]));
    const at = body.length - 20;
    const head = (framing: string) => mcpHead(new URL(mcp.url).host, user.mcpToken, framing);
    const text = await sendInParts(mcp.url, frame(head, body, at));
    expect(statuses(text)).toEqual([400]);
    expect(text).toContain('"code":-32700');
  });

  it.each([
    ['with its length declared', withLength],
    ['chunked', chunked],
  ])(
    'reaches the REST API whole, or is refused there when it ends inside a character (%s)',
    async (_how, frame) => {
      const { mcp, admin } = await gateway();
      const host = new URL(mcp.url).host;
      const head = (framing: string) =>
        [
          'POST /api/policy/roles HTTP/1.1',
          `Host: ${host}`,
          'Content-Type: application/json',
          ...Object.entries(admin.headers).map(([name, value]) => `${name}: ${value}`),
          'Connection: close',
          framing,
          '',
          '',
        ].join('\r\n');
      const role = (id: string, name: Buffer) =>
        Buffer.concat([
          Buffer.from(`{"id":"${id}","patterns":["demo.*"],"name":"`),
          name,
          Buffer.from('"}'),
        ]);
      const id = `split-${frame.name.toLowerCase()}`;
      const whole = role(id, Buffer.concat([Buffer.from('R'), EURO]));
      const made = await sendInParts(mcp.url, frame(head, whole, whole.indexOf(EURO) + 2));
      expect(statuses(made)).toEqual([201]);
      expect((await mcp.gateway.services.policy.getRole(id))?.name).toBe('R€');
      const cut = role(`${id}-cut`, EURO.subarray(0, 1));
      const refused = await sendInParts(mcp.url, frame(head, cut, cut.length - 2));
      expect(statuses(refused)).toEqual([400]);
      expect(refused).toContain('"code":"bad_request"');
      expect(await mcp.gateway.services.policy.getRole(`${id}-cut`)).toBeUndefined();
    },
  );

  it.each([
    ['with its length declared', withLength],
    ['chunked', chunked],
  ])(
    'of a sign-in form is read whole, or refused when it ends inside a character (%s)',
    async (_how, frame) => {
      const { mcp } = await gateway();
      const head = (framing: string) =>
        [
          'POST /sign-in HTTP/1.1',
          `Host: ${new URL(mcp.url).host}`,
          `Origin: ${mcp.url}`,
          'Content-Type: application/x-www-form-urlencoded',
          'Connection: close',
          framing,
          '',
          '',
        ].join('\r\n');
      const form = (email: Buffer) =>
        Buffer.concat([
          Buffer.from('email='),
          email,
          Buffer.from('%40example.test&password=wrong'),
        ]);
      const whole = form(Buffer.concat([Buffer.from('r'), EURO]));
      const read = await sendInParts(mcp.url, frame(head, whole, whole.indexOf(EURO) + 1));
      const [status] = statuses(read);
      expect(status).toBeLessThan(500);
      expect(read).not.toContain('not valid UTF-8');
      const cut = Buffer.concat([Buffer.from('email=r'), EURO.subarray(0, 2)]);
      const refused = await sendInParts(mcp.url, frame(head, cut, cut.length - 1));
      expect(statuses(refused)).toEqual([400]);
    },
  );

  it('with a byte order mark is read without it on /mcp, as a fetch Request reads JSON', async () => {
    const { mcp, user } = await gateway();
    const body = Buffer.concat([
      Buffer.from([0xef, 0xbb, 0xbf]),
      ...echoBody([Buffer.from('bom')]),
    ]);
    const head = (framing: string) => mcpHead(new URL(mcp.url).host, user.mcpToken, framing);
    for (const frame of [withLength, chunked]) {
      const text = await sendInParts(mcp.url, frame(head, body, 2));
      expect(statuses(text)).toEqual([200]);
      expect(text).toContain('"text":"bom"');
    }
  });

  it.each([
    ['two different lengths', 'Content-Length: 5\r\nContent-Length: 6'],
    ['the same length twice', 'Content-Length: 6\r\nContent-Length: 6'],
    ['a length and chunked', 'Content-Length: 6\r\nTransfer-Encoding: chunked'],
    ['a signed length', 'Content-Length: +6'],
  ])('is refused with a 400 when it declares %s', async (_what, framing) => {
    const { mcp, user } = await gateway();
    const head = mcpHead(new URL(mcp.url).host, user.mcpToken, framing);
    const text = await sendInParts(mcp.url, [Buffer.from(head), Buffer.from('{"a":1}')]);
    expect(statuses(text)).toEqual([400]);
  });

  // The bytes past its length start a request that is not HTTP: Node answers 400 and closes.
  it('that runs past its declared length is refused, never answered with a 5xx', async () => {
    const { mcp, user } = await gateway();
    const body = Buffer.concat(echoBody([Buffer.from('long')]));
    const head = mcpHead(
      new URL(mcp.url).host,
      user.mcpToken,
      `Content-Length: ${body.length - 5}`,
    );
    const text = await sendInParts(mcp.url, [Buffer.from(head), body]);
    const seen = statuses(text);
    expect(seen).toContain(400);
    expect(seen.every((status) => status >= 400 && status < 500)).toBe(true);
  });
});
