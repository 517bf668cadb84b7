import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import { describe, expect, it, vi } from 'vitest';
import { startMcpGateway } from '#test/mcp/mcp-test-kit.js';

// Issue 13 item 3: a client that hangs up in the middle of its body is its own fault, so the
// request is logged as a 4xx, never as a 500 with an 'unhandled error'.

/** Node's channel told of each request a server has read the head of, before it is handled. */
const REQUEST_START = 'http.server.request.start';

/**
 * Sends `head` and part of a body promised to be 100000 bytes long (by `Content-Length`, or a
 * chunk of that size), then hangs up once the server is waiting on the rest of it.
 */
async function abortMidBody(url: string, head: string, framing: Framing): Promise<void> {
  const { hostname, port } = new URL(url);
  const socket = connect({ host: hostname, port: Number(port) });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  // The server's message of this connection's request (the gateway runs in this process).
  let onStart: (message: unknown) => void = () => {};
  const started = new Promise<IncomingMessage>((resolve) => {
    onStart = (message) => {
      const { request } = message as { request: IncomingMessage };
      if (request.socket.remotePort === socket.localPort) resolve(request);
    };
  });
  subscribe(REQUEST_START, onStart);
  socket.write(
    framing === 'length'
      ? `${head}Content-Length: 100000\r\nConnection: close\r\n\r\n`
      : `${head}Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n${(100_000).toString(16)}\r\n`,
  );
  socket.write('{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"x":"');
  socket.write('a'.repeat(20_000));
  const request = await started.finally(() => unsubscribe(REQUEST_START, onStart));
  // The server has read every byte sent, and the request's body stream (the Node adapter's, which
  // the handler's read takes from) has taken all of it: the server waits on the rest of the body.
  await vi.waitFor(
    () => {
      expect(request.socket.bytesRead).toBe(socket.bytesWritten);
      expect(request.readableFlowing).toBe(true);
      expect(request.readableLength).toBe(0);
    },
    { timeout: 5000, interval: 5 },
  );
  socket.destroy();
}

type Framing = 'length' | 'chunked';

interface LogLine {
  msg?: string;
  method?: string;
  status?: number;
}

function logLines(text: string): LogLine[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as LogLine);
}

/** Waits until the gateway has logged the test's one POST, and returns that line. */
async function postLine(logs: () => string): Promise<LogLine> {
  for (let tries = 0; tries < 150; tries += 1) {
    const line = logLines(logs()).find(
      (entry) => entry.msg === 'request' && entry.method === 'POST',
    );
    if (line !== undefined) return line;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`no request line for the POST in:\n${logs()}`);
}

describe('a body cut off by the client', () => {
  it.each([
    ['/mcp', 'mcp', 'length'],
    ['/mcp', 'mcp', 'chunked'],
    ['/api/connections', 'api', 'length'],
    ['/api/connections', 'api', 'chunked'],
    ['/api/auth/sign-in/email', 'auth', 'length'],
    ['/sign-in', 'web', 'length'],
    ['/sign-in', 'web', 'chunked'],
    ['/cli/sign-in', 'cli', 'length'],
    ['/cli/sign-in', 'cli', 'chunked'],
  ] as const)(
    'on %s (%s, by %s) is logged as a 400, and the server keeps answering',
    async (route, kind, framing) => {
      const mcp = await startMcpGateway();
      const user = await mcp.user();
      const { host } = new URL(mcp.url);
      const headers: Record<string, string> = {
        mcp: `Authorization: Bearer ${user.mcpToken}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n`,
        api: `Authorization: Bearer ${user.token}\r\nContent-Type: application/json\r\n`,
        web: `Origin: ${mcp.url}\r\nContent-Type: application/x-www-form-urlencoded\r\n`,
        cli: `Origin: ${mcp.url}\r\nContent-Type: application/x-www-form-urlencoded\r\n`,
        auth: `Origin: ${mcp.url}\r\nContent-Type: application/json\r\n`,
      };
      await abortMidBody(
        mcp.url,
        `POST ${route} HTTP/1.1\r\nHost: ${host}\r\n${headers[kind]}`,
        framing,
      );

      const line = await postLine(mcp.gateway.logs);
      expect(line.status).toBe(400);
      const logs = mcp.gateway.logs();
      expect(logs).not.toContain('unhandled error');
      expect(logLines(logs).filter((entry) => (entry.status ?? 0) >= 500)).toEqual([]);

      const health = await fetch(`${mcp.url}/healthz`);
      expect(health.status).toBe(200);
    },
  );
});
