/**
 * The gateway's own headers join whatever head an answer writes (issue 37, gateway-response.ts):
 * once each, with the answer's own header of the same name winning, however the head is written.
 * Work put off until the answer goes out (`afterSent`) runs once, right after it, however it goes.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it, onTestFinished } from 'vitest';
import { GatewayResponse } from './gateway-response.js';

/** The raw head lines a request to a server answering with `answer` receives. */
async function headOf(answer: (response: GatewayResponse) => void): Promise<string[]> {
  const server = createServer({ ServerResponse: GatewayResponse }, (_request, response) => {
    const gateway = response as ServerResponse as GatewayResponse;
    gateway.preset('X-Content-Type-Options', 'nosniff');
    gateway.preset('X-Request-Id', 'req-1');
    answer(gateway);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const { port } = server.address() as AddressInfo;
  const response = await fetch(`http://127.0.0.1:${port}/`);
  await response.text();
  const lines: string[] = [];
  response.headers.forEach((value, name) => {
    lines.push(`${name}: ${value}`);
  });
  return lines;
}

describe('GatewayResponse', () => {
  it("adds the preset headers to an answer's headers object", async () => {
    const head = await headOf((response) => {
      response.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache' });
      response.end('{}');
    });
    expect(head).toEqual(
      expect.arrayContaining([
        'content-type: application/json',
        'cache-control: no-cache',
        'x-content-type-options: nosniff',
        'x-request-id: req-1',
      ]),
    );
  });

  it("lets the answer's own header of the same name win, in any case, written once", async () => {
    const head = await headOf((response) => {
      response.writeHead(404, 'Gone', { 'x-request-id': 'mine' });
      response.end();
    });
    expect(head.filter((line) => line.startsWith('x-request-id'))).toEqual(['x-request-id: mine']);
    expect(head).toContain('x-content-type-options: nosniff');
  });

  it("writes an object's lists and numbers as Node does, and refuses what Node refuses", async () => {
    const head = await headOf((response) => {
      response.writeHead(200, {
        'Set-Cookie': ['a=1', 'b=2'],
        'Content-Length': 2,
        'X-CONTENT-TYPE-OPTIONS': 'nosniff',
      });
      response.end('{}');
    });
    expect(head).toEqual(
      expect.arrayContaining([
        'set-cookie: a=1',
        'set-cookie: b=2',
        'content-length: 2',
        'x-content-type-options: nosniff',
        'x-request-id: req-1',
      ]),
    );
    expect(head.filter((line) => line.startsWith('x-content-type-options'))).toHaveLength(1);
    const refused: string[] = [];
    await headOf((response) => {
      for (const headers of [
        { 'X-Bad': 'a\nb' },
        { 'Bad Name': 'x' },
        { 'X-Missing': undefined },
      ]) {
        try {
          response.writeHead(200, headers);
        } catch (error) {
          refused.push((error as NodeJS.ErrnoException).code ?? '');
        }
      }
      response.end('after');
    });
    expect(refused).toEqual([
      'ERR_INVALID_CHAR',
      'ERR_INVALID_HTTP_TOKEN',
      'ERR_HTTP_INVALID_HEADER_VALUE',
    ]);
  });

  it('adds them when the head is written without headers, or after setHeader', async () => {
    const implicit = await headOf((response) => {
      response.end('plain');
    });
    expect(implicit).toEqual(
      expect.arrayContaining(['x-content-type-options: nosniff', 'x-request-id: req-1']),
    );
    const progressive = await headOf((response) => {
      response.setHeader('X-Request-Id', 'set');
      response.setHeader('Content-Type', 'text/plain');
      response.writeHead(200, ['Cache-Control', 'no-store']);
      response.end('plain');
    });
    expect(progressive).toEqual(
      expect.arrayContaining([
        'x-content-type-options: nosniff',
        'x-request-id: set',
        'cache-control: no-store',
        'content-type: text/plain',
      ]),
    );
    expect(progressive.filter((line) => line.startsWith('x-request-id'))).toHaveLength(1);
  });

  it('runs work put off with afterSent once the answer goes out, whichever way it goes', async () => {
    const seen: string[] = [];
    const watch = (response: GatewayResponse, name: string) => {
      response.afterSent(() => {
        seen.push(`${name}: ${response.headersSent ? 'sent' : 'not sent'}`);
      });
      seen.push(`${name}: waiting`);
    };
    await headOf((response) => {
      watch(response, 'end');
      response.writeHead(200, { 'Content-Type': 'text/plain' });
      response.end('one body');
      seen.push('end: returned');
    });
    await headOf((response) => {
      watch(response, 'write');
      response.write('first');
      response.write('second');
      response.end();
    });
    await headOf((response) => {
      watch(response, 'flush');
      response.writeHead(200, { 'Content-Type': 'text/event-stream' });
      response.flushHeaders();
      response.end();
    });
    await headOf((response) => {
      response.end('already');
      watch(response, 'late');
    });
    await expect(
      headOf((response) => {
        watch(response, 'destroy');
        response.destroy();
      }),
    ).rejects.toThrow();
    expect(seen).toEqual([
      'end: waiting',
      'end: sent',
      'end: returned',
      'write: waiting',
      'write: sent',
      'flush: waiting',
      'flush: sent',
      'late: sent',
      'late: waiting',
      'destroy: waiting',
      'destroy: not sent',
    ]);
  });

  it('runs every piece of work put off, in the order given, once', async () => {
    const ran: string[] = [];
    await headOf((response) => {
      response.afterSent(() => ran.push('first'));
      response.afterSent(() => ran.push('second'));
      response.afterSent(() => ran.push('third'));
      expect(ran).toEqual([]);
      response.end();
      response.end();
    });
    expect(ran).toEqual(['first', 'second', 'third']);
  });
});
