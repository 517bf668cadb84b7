/**
 * The `lean` and `lean-checked` sides (server.ts): the relay and the checked relay on plumbing as
 * light as the Gateway's own, to tell the work a call must do from what the relay's plumbing
 * costs. Node's `http` server with no framework and no `Request`/`Response` objects (the
 * Gateway has its own fork of the adapter and makes none on these paths), and undici's `dispatch`
 * with a handler of its own that gathers the answer whole (the Gateway's `upstream/http-exchange.ts`
 * does the same; the relay uses undici's `request()` and reads its body stream).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Dispatcher, Pool } from 'undici';
import type { RelayChecks } from './checked-relay.js';

const FORWARDED = ['accept', 'content-type', 'mcp-protocol-version', 'mcp-method', 'mcp-name'];

interface Answer {
  status: number;
  type: string;
  text: string;
}

/** Starts a lean relay to `upstream`, doing `checks` besides when given. */
export function startLeanRelay(
  upstream: string,
  checks?: RelayChecks,
): Promise<{ url: string; stop: () => Promise<void> }> {
  const pool = new Pool(upstream, { connections: 64 });
  const origin = new URL(upstream).origin;
  const forward = async (request: IncomingMessage, response: ServerResponse, body: string) => {
    const headers: Record<string, string> = {};
    for (const name of FORWARDED) {
      const value = request.headers[name];
      if (typeof value === 'string') headers[name] = value;
    }
    const call = checks?.request(request.headers.authorization ?? null, body);
    if (checks !== undefined && call === undefined) return end(response, 400, '');
    const answer = await exchange(pool, { origin, path: '/mcp', method: 'POST', headers, body });
    if (checks === undefined || call === undefined) {
      response.writeHead(answer.status, { 'content-type': answer.type });
      response.end(answer.text);
      return;
    }
    if (!(await checks.answer(call, answer.text))) return end(response, 502, '');
    response.writeHead(answer.status, {
      'content-type': answer.type,
      'x-content-type-options': 'nosniff',
      'x-request-id': call.id,
    });
    response.end(answer.text);
  };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('error', () => response.destroy());
    request.on('end', () => {
      const body = chunks.length === 1 ? String(chunks[0]) : Buffer.concat(chunks).toString();
      forward(request, response, body).catch(() => end(response, 502, ''));
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${port}`,
        stop: async () => {
          await new Promise<void>((done) => server.close(() => done()));
          await pool.close();
        },
      });
    });
  });
}

function end(response: ServerResponse, status: number, text: string): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  response.writeHead(status, { 'content-type': 'text/plain' });
  response.end(text);
}

/** One request on `pool`, its answer gathered whole. */
function exchange(pool: Pool, options: Dispatcher.DispatchOptions): Promise<Answer> {
  return new Promise((resolve, reject) => {
    let status = 0;
    let type = 'application/json';
    const chunks: Buffer[] = [];
    pool.dispatch(options, {
      onRequestStart() {},
      onResponseStart(_controller, statusCode, headers) {
        status = statusCode;
        const value = headers['content-type'];
        if (typeof value === 'string') type = value;
      },
      onResponseData(_controller, chunk) {
        chunks.push(chunk);
      },
      onResponseEnd() {
        const text = chunks.length === 1 ? String(chunks[0]) : Buffer.concat(chunks).toString();
        resolve({ status, type, text });
      },
      onResponseError(_controller, error) {
        reject(error);
      },
    });
  });
}
