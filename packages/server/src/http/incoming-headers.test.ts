import { once } from 'node:events';
import type { Server } from 'node:http';
import { connect } from 'node:net';
import { type Http2Bindings, type HttpBindings, serve } from '@hono/node-server';
import { describe, expect, it, onTestFinished } from 'vitest';
import { IncomingHeaders } from './incoming-headers.js';

const RAW = [
  'Host',
  '127.0.0.1:8787',
  'Content-Type',
  'application/json',
  'accept',
  'application/json',
  'Accept',
  'text/event-stream',
  'Cookie',
  'a=1',
  'cookie',
  'b=2',
  'X-Padded',
  ' \tvalue\t ',
  'Mcp-Session-Id',
  'abc',
];

/** Names a hostile list repeats or that an object holds already. */
const ASKED = [
  'host',
  'authorization',
  'cookie',
  'set-cookie',
  'content-type',
  'content-length',
  'mcp-session-id',
  '__proto__',
  'constructor',
  'tostring',
  'hasownproperty',
  'x-empty',
  'x-spaces',
  'x-latin',
  'x-tab',
  'x-trail',
  'x-forwarded-for',
  'origin',
  'Authorization',
];

const NAMES = [
  'host',
  'content-type',
  'Content-Type',
  'accept',
  'cookie',
  'x-padded',
  'MCP-SESSION-ID',
  'authorization',
  'set-cookie',
];

/** A fetch `Headers` built from the same raw list, as the Node adapter builds one. */
function native(raw: readonly string[]): Headers {
  const headers = new Headers();
  for (let i = 0; i < raw.length; i += 2) headers.append(raw[i] as string, raw[i + 1] as string);
  return headers;
}

/** The headers the gateway's adapter gives a request of `incoming` (node-adapter/request.ts). */
function ours(env: HttpBindings | Http2Bindings): Headers {
  const { incoming } = env;
  const parsed = 'authority' in incoming ? undefined : incoming.headers;
  return new IncomingHeaders(incoming.rawHeaders, parsed) as unknown as Headers;
}

/**
 * A server on 127.0.0.1 (of `@hono/node-server`, whose headers are the reference) handing each request and its Node bindings to `look`, and a `send` of a
 * POST with `fields` (latin1 bytes, as a client may send) on a connection of its own.
 */
async function fieldServer(look: (request: Request, env: HttpBindings | Http2Bindings) => void) {
  const server = serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch: (request: Request, env: HttpBindings | Http2Bindings) => {
      look(request, env);
      return new Response('ok');
    },
  }) as Server;
  await once(server, 'listening');
  onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return async (fields: string[]) => {
    const socket = connect({ host: '127.0.0.1', port: address.port });
    onTestFinished(() => {
      socket.destroy();
    });
    await once(socket, 'connect');
    socket.resume();
    socket.end(
      Buffer.from(
        `${['POST / HTTP/1.1', 'Content-Length: 0', 'Connection: close', ...fields].join('\r\n')}\r\n\r\n`,
        'latin1',
      ),
    );
    await once(socket, 'close');
  };
}

describe('IncomingHeaders', () => {
  it('answers get and has as the Node adapter does, joining repeated fields', () => {
    const headers = new IncomingHeaders(RAW);
    expect(headers).toBeInstanceOf(Headers);
    expect(NAMES.map((name) => headers.get(name))).toEqual([
      '127.0.0.1:8787',
      'application/json',
      'application/json',
      'application/json, text/event-stream',
      'a=1; b=2',
      'value',
      'abc',
      null,
      null,
    ]);
    expect(headers.has('Accept')).toBe(true);
    expect(headers.has('origin')).toBe(false);
  });

  it('throws for an invalid name as a Headers object does', () => {
    const headers = new IncomingHeaders(RAW);
    expect(() => headers.get('bad name')).toThrow(TypeError);
    expect(() => native(RAW).get('bad name')).toThrow(TypeError);
  });

  it('answers a name asked again, in any case, as the first time; an invalid one throws each time', () => {
    const headers = new IncomingHeaders(RAW);
    for (let round = 0; round < 3; round += 1) {
      expect(headers.get('X-Absent-Header')).toBeNull();
      expect(headers.get('x-absent-header')).toBeNull();
      expect(headers.get('Content-Type')).toBe('application/json');
      expect(headers.get('CONTENT-TYPE')).toBe('application/json');
      expect(() => headers.get('bad name')).toThrow(TypeError);
    }
  });

  it('lists, copies and changes as a Headers object built from the raw list', () => {
    const headers = new IncomingHeaders(RAW);
    const expected = native(RAW);
    expect([...headers]).toEqual([...expected]);
    expect([...new Headers(headers as unknown as Headers)]).toEqual([...expected]);
    headers.set('mcp-protocol-version', '2025-11-25');
    headers.delete('cookie');
    headers.append('accept', '*/*');
    expect(headers.get('mcp-protocol-version')).toBe('2025-11-25');
    expect(headers.has('cookie')).toBe(false);
    expect(headers.get('accept')).toBe('application/json, text/event-stream, */*');
    const seen: string[] = [];
    headers.forEach((_value, key, parent) => {
      expect(parent).toBe(headers);
      seen.push(key);
    });
    expect(seen).toContain('mcp-protocol-version');
  });

  it('reads requests from the network as the adapter reads them, with and without repeated fields', async () => {
    const seen: { adapter: (string | null)[]; ours: (string | null)[] }[] = [];
    const send = await fieldServer((request, env) => {
      const adapter = NAMES.map((name) => request.headers.get(name));
      seen.push({ adapter, ours: NAMES.map((name) => ours(env).get(name)) });
    });
    const repeated: string[] = [];
    for (let i = 0; i < RAW.length; i += 2) repeated.push(`${RAW[i]}: ${RAW[i + 1]}`);
    await send([...repeated, 'Authorization: Bearer one', 'authorization: Bearer two']);
    // Each name once: looked up in Node's own headers object.
    await send(['Host: 127.0.0.1', 'Accept: text/event-stream', 'Cookie: a=1', 'X-Padded: v']);
    expect(seen).toHaveLength(2);
    expect(seen[0]?.ours).toEqual(seen[0]?.adapter);
    expect(seen[0]?.ours).toContain('Bearer one, Bearer two');
    expect(seen[1]?.ours).toEqual(seen[1]?.adapter);
    expect(seen[1]?.ours).toEqual([
      '127.0.0.1',
      null,
      null,
      'text/event-stream',
      'a=1',
      'v',
      null,
      null,
      null,
    ]);
  });

  it('answers every method as the adapter does for hostile field lists from the network', async () => {
    type Answers = Record<string, unknown>;
    const answers = (headers: Headers): Answers => ({
      get: ASKED.map((name) => headers.get(name)),
      has: ASKED.map((name) => headers.has(name)),
      entries: [...headers.entries()],
      iterated: [...headers],
      keys: [...headers.keys()],
      values: [...headers.values()],
      forEach: (() => {
        const seen: string[][] = [];
        headers.forEach((value, key) => {
          seen.push([key, value]);
        });
        return seen;
      })(),
      setCookie: headers.getSetCookie(),
    });
    const seen: { adapter: Answers; ours: Answers }[] = [];
    const send = await fieldServer((request, env) => {
      const adapter = answers(request.headers);
      // get first, as the gateway's routes ask it, then the rest.
      const headers = ours(env);
      const got = ASKED.map((name) => headers.get(name));
      seen.push({ adapter, ours: { ...answers(headers), get: got } });
    });
    const lists = [
      ['Host: 127.0.0.1', 'HOST: evil.example'],
      ['Host: a', 'Authorization: Bearer one', 'AUTHORIZATION: Bearer two'],
      ['Host: a', 'Cookie: a=1', 'cookie: b=2', 'COOKIE: c=3'],
      ['Host: a', 'Set-Cookie: a=1', 'Set-Cookie: b=2, c=3'],
      ['Host: a', 'Set-Cookie: a=1'],
      ['Host: a', '__proto__: x', 'constructor: y', 'toString: z', 'hasOwnProperty: w'],
      ['Host: a', 'Content-Type: application/json', 'content-type: text/plain'],
      ['Host: a', 'Mcp-Session-Id: one', 'mcp-session-id: two'],
      [
        'Host: a',
        'X-Empty:',
        'X-Spaces:    ',
        'X-Latin: caf\xe9 \xff',
        'X-Tab: a\tb',
        'X-Trail: \t v \t ',
      ],
      [
        'Host: a',
        'X-Forwarded-For: 1.1.1.1',
        'X-Forwarded-For: 2.2.2.2',
        'Origin: https://a',
        'Origin: https://b',
      ],
    ];
    for (const fields of lists) await send(fields);
    expect(seen).toHaveLength(lists.length);
    for (const one of seen) expect(one.ours).toEqual(one.adapter);
    expect(seen[0]?.ours.get).toContain('127.0.0.1, evil.example');
    expect(seen[2]?.ours.get).toContain('a=1; b=2; c=3');
    expect(seen[3]?.ours.setCookie).toEqual(['a=1', 'b=2, c=3']);
  });
});
