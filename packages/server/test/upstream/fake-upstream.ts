import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { onTestFinished } from 'vitest';

/** What the fake upstream does when one of its tools is called. */
export type FakeBehaviour =
  | { kind: 'answer'; text?: string }
  | { kind: 'hang' }
  /** Holds the call until the test calls `release()`, then answers `text`. */
  | { kind: 'hold'; text: string }
  | { kind: 'garbage' }
  | { kind: 'huge'; bytes: number }
  | { kind: 'redirect'; location: string }
  | { kind: 'status'; status: number }
  /** A JSON-RPC error answer. */
  | { kind: 'error'; code: number; message: string; data?: unknown }
  | { kind: 'kill' }
  /** A JSON answer that promises more bytes than it sends, then drops the connection. */
  | { kind: 'json-cut' }
  /** An event stream: one event whose data is not JSON. */
  | { kind: 'sse-garbage' }
  /** An event stream that ends (after a comment) without answering. */
  | { kind: 'sse-cut' }
  /** An event stream of one event of `bytes` characters. */
  | { kind: 'sse-huge'; bytes: number }
  /** An event stream that ends after an event id; `GET` with `Last-Event-ID` answers. */
  | { kind: 'sse-resume'; text: string }
  /** An event stream that answers, then stays open, sending a comment every 50 ms. */
  | { kind: 'sse-linger' }
  /**
   * Answers, then writes on the same connection a second, unasked answer (to the id after this
   * call's, saying `smuggled`), for whatever request the gateway sends next on it.
   */
  | { kind: 'smuggle' }
  /** A result whose structuredContent nests arrays `depth` levels deep. */
  | { kind: 'deep'; depth: number }
  /**
   * A JSON batch: answers (saying `stolen`) to the ids before and after this call's, then, unless
   * `own` is false, this call's own answer (saying `batch answered`).
   */
  | { kind: 'batch'; own: boolean }
  /** An answer with both a result and an error. */
  | { kind: 'result-and-error' }
  /**
   * An event stream that never answers: answers to the ids before and after this call's (saying
   * `stolen`), then a comment every 50 ms, until the gateway lets go.
   */
  | { kind: 'sse-never' };

/** A tool the fake upstream lists. */
export interface FakeTool {
  name: string;
  behaviour: FakeBehaviour;
  annotations?: Record<string, unknown>;
  /** Listed as it is; default an object schema without properties. */
  inputSchema?: Record<string, unknown>;
}

/** A started fake upstream. */
export interface FakeUpstream {
  url: string;
  /** Each `tools/call` received: the tool and the headers that matter. */
  calls: {
    name: string;
    authorization: string | undefined;
    traceparent: string | undefined;
    arguments: unknown;
  }[];
  /** Each JSON-RPC method received, with its `MCP-Protocol-Version` header. */
  requests: { method: string; protocolVersion: string | undefined }[];
  /** Replaces the listed tools (a test then sends nothing: the gateway refreshes on schedule). */
  setTools(tools: FakeTool[]): void;
  /** How many `sse-linger` streams the gateway has not closed yet. */
  readonly lingering: number;
  /** How many `hang` calls the gateway has not let go of yet. */
  readonly hanging: number;
  /** How many `hold` calls wait for {@link release}. */
  readonly held: number;
  /** Answers every `hold` call still waiting. */
  release(): void;
}

/**
 * A small MCP server over Streamable HTTP (JSON answers, no sessions) on 127.0.0.1 that lists
 * `tools` and misbehaves on purpose when one is called: hangs, sends garbage, a huge body, a
 * redirect, an HTTP error, drops the connection, smuggles a second answer after its own, or answers an event stream that is garbage,
 * huge, cut short or to be resumed. It speaks the 2025 revision (`initialize`) only, unless
 * `claims2026`: then its `server/discover` offers 2026-07-28 (and what it answers after is still
 * whatever its tools do). Stopped when the test ends.
 */
export async function startFakeUpstream(
  tools: FakeTool[],
  options: { claims2026?: boolean } = {},
): Promise<FakeUpstream> {
  let listed = tools;
  const calls: FakeUpstream['calls'] = [];
  const requests: FakeUpstream['requests'] = [];
  const hanging = new Set<ServerResponse>();
  const held = new Set<() => void>();
  const lingering = new Set<ServerResponse>();
  /** Answers kept for a stream to resume, by event id. */
  const resumable = new Map<string, string>();
  const server = createServer(async (request, response) => {
    const resumeFrom = request.headers['last-event-id'];
    if (request.method === 'GET' && typeof resumeFrom === 'string' && resumable.has(resumeFrom)) {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.end(`id: ${resumeFrom}-done\ndata: ${resumable.get(resumeFrom)}\n\n`);
      resumable.delete(resumeFrom);
      return;
    }
    if (request.method !== 'POST') {
      response.writeHead(405).end();
      return;
    }
    const message = JSON.parse(await bodyOf(request)) as {
      id?: number;
      method: string;
      params?: { name?: string; arguments?: unknown; protocolVersion?: string };
    };
    // A 2026-07-28 result says it is complete.
    const complete = (result: Record<string, unknown>) =>
      options.claims2026 === true ? { resultType: 'complete', ...result } : result;
    const answer = (result: Record<string, unknown>) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: complete(result) }));
    };
    requests.push({
      method: message.method,
      protocolVersion: [request.headers['mcp-protocol-version']].flat()[0],
    });
    if (message.id === undefined) {
      response.writeHead(202).end();
      return;
    }
    if (message.method === 'server/discover' && options.claims2026 === true) {
      answer({
        supportedVersions: ['2026-07-28'],
        capabilities: { tools: {} },
        serverInfo: { name: 'fake', version: '1.0.0' },
      });
      return;
    }
    if (message.method === 'initialize') {
      answer({
        protocolVersion: message.params?.protocolVersion ?? '2025-06-18',
        capabilities: { tools: { listChanged: true } },
        serverInfo: { name: 'fake', version: '1.0.0' },
      });
      return;
    }
    if (message.method === 'tools/list') {
      answer({
        // 2026-07-28 list results carry cache hints (harmless to a 2025 client).
        ...(options.claims2026 === true ? { ttlMs: 0, cacheScope: 'public' } : {}),
        tools: listed.map((tool) => ({
          name: tool.name,
          description: `The fake ${tool.name}`,
          inputSchema: tool.inputSchema ?? { type: 'object', properties: {} },
          ...(tool.annotations === undefined ? {} : { annotations: tool.annotations }),
        })),
      });
      return;
    }
    if (message.method !== 'tools/call') {
      answer({});
      return;
    }
    const name = message.params?.name ?? '';
    calls.push({
      name,
      authorization: request.headers.authorization,
      traceparent: [request.headers.traceparent].flat()[0],
      arguments: message.params?.arguments,
    });
    const behaviour = listed.find((tool) => tool.name === name)?.behaviour ?? { kind: 'answer' };
    switch (behaviour.kind) {
      case 'answer':
        // A digest of the credential, not the credential: which caller's it was, unmasked.
        answer({
          content: [
            {
              type: 'text',
              text: behaviour.text ?? `ran ${name} as ${digest(request.headers.authorization)}`,
            },
          ],
        });
        return;
      case 'hang':
        hanging.add(response);
        response.on('close', () => hanging.delete(response));
        return;
      case 'hold': {
        const { text } = behaviour;
        const release = () => answer({ content: [{ type: 'text', text }] });
        held.add(release);
        response.on('close', () => held.delete(release));
        return;
      }
      case 'garbage':
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end('{"jsonrpc": "2.0", "id": ');
        return;
      case 'huge':
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify({
            jsonrpc: '2.0',
            id: message.id,
            result: complete({ content: [{ type: 'text', text: 'x'.repeat(behaviour.bytes) }] }),
          }),
        );
        return;
      case 'redirect':
        response.writeHead(307, { location: behaviour.location }).end();
        return;
      case 'status':
        response.writeHead(behaviour.status, { 'content-type': 'text/plain' }).end('no');
        return;
      case 'kill':
        request.socket.destroy();
        return;
      case 'smuggle': {
        const body = (id: unknown, text: string) =>
          JSON.stringify({
            jsonrpc: '2.0',
            id,
            result: complete({ content: [{ type: 'text', text }] }),
          });
        const next = typeof message.id === 'number' ? message.id + 1 : `${String(message.id)}`;
        const smuggled = body(next, 'smuggled');
        const own = body(message.id, 'smuggler answered');
        response.writeHead(200, {
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(own)),
        });
        response.end(own, () => {
          request.socket.write(
            `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(smuggled)}\r\n\r\n${smuggled}`,
          );
        });
        return;
      }
      case 'json-cut': {
        const head = `{"jsonrpc":"2.0","id":${JSON.stringify(message.id)},"result":{"content":[`;
        response.writeHead(200, { 'content-type': 'application/json', 'content-length': '4096' });
        response.write(head, () => request.socket.destroy());
        return;
      }
      case 'error': {
        const { code, message: text, data } = behaviour;
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify({ jsonrpc: '2.0', id: message.id, error: { code, message: text, data } }),
        );
        return;
      }
      case 'sse-garbage':
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.end('data: {"jsonrpc": "2.0", "id": \n\n');
        return;
      case 'sse-cut':
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.end(': a comment, then nothing\n\n');
        return;
      case 'sse-huge':
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.end(`data: ${'x'.repeat(behaviour.bytes)}\n\n`);
        return;
      case 'batch': {
        const answers = neighbours(message.id).map((id) => ({
          jsonrpc: '2.0',
          id,
          result: complete({ content: [{ type: 'text', text: 'stolen' }] }),
        }));
        if (behaviour.own) {
          const result = complete({ content: [{ type: 'text', text: 'batch answered' }] });
          answers.push({ jsonrpc: '2.0', id: message.id, result });
        }
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify(answers));
        return;
      }
      case 'result-and-error':
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify({
            jsonrpc: '2.0',
            id: message.id,
            result: complete({ content: [{ type: 'text', text: 'both' }] }),
            error: { code: -32000, message: 'both' },
          }),
        );
        return;
      case 'sse-never': {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        for (const id of neighbours(message.id)) {
          const result = complete({ content: [{ type: 'text', text: 'stolen' }] });
          response.write(`data: ${JSON.stringify({ jsonrpc: '2.0', id, result })}\n\n`);
        }
        const keepalive = setInterval(() => response.write(': not yet\n\n'), 50);
        lingering.add(response);
        response.on('close', () => {
          clearInterval(keepalive);
          lingering.delete(response);
        });
        return;
      }
      case 'sse-linger': {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        const result = complete({ content: [{ type: 'text', text: 'answered, still here' }] });
        response.write(`data: ${JSON.stringify({ jsonrpc: '2.0', id: message.id, result })}\n\n`);
        const keepalive = setInterval(() => response.write(': still here\n\n'), 50);
        lingering.add(response);
        response.on('close', () => {
          clearInterval(keepalive);
          lingering.delete(response);
        });
        return;
      }
      case 'deep': {
        const { depth } = behaviour;
        const nested = `${'['.repeat(depth)}${']'.repeat(depth)}`;
        const content = JSON.stringify([{ type: 'text', text: 'deep' }]);
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(
          `{"jsonrpc":"2.0","id":${JSON.stringify(message.id)},"result":{"resultType":"complete","content":${content},"structuredContent":{"a":${nested}}}}`,
        );
        return;
      }
      case 'sse-resume': {
        const eventId = `call-${message.id}`;
        resumable.set(
          eventId,
          JSON.stringify({
            jsonrpc: '2.0',
            id: message.id,
            result: complete({ content: [{ type: 'text', text: behaviour.text }] }),
          }),
        );
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        // CRLF line ends, and a retry of 10 ms: the parser must take both.
        response.end(`id: ${eventId}\r\nretry: 10\r\ndata: \r\n\r\n`);
        return;
      }
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(async () => {
    for (const response of [...hanging, ...lingering]) response.socket?.destroy();
    held.clear();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    calls,
    requests,
    setTools(next) {
      listed = next;
    },
    get lingering() {
      return lingering.size;
    },
    get hanging() {
      return hanging.size;
    },
    get held() {
      return held.size;
    },
    release() {
      for (const release of held) release();
      held.clear();
    },
  };
}

/** The first 12 hex digits of SHA-256 of `value` (or `none`), as the fake answers it. */
export function digest(value: string | undefined): string {
  return value === undefined
    ? 'none'
    : createHash('sha256').update(value).digest('hex').slice(0, 12);
}

async function bodyOf(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** The request ids just before and after `id` (the gateway's `gw-N`, or a number). */
function neighbours(id: unknown): unknown[] {
  if (typeof id === 'number') return [id - 1, id + 1];
  const [, prefix, n] = /^(.*?)(\d+)$/.exec(String(id)) ?? [];
  if (n === undefined) return [];
  return [`${prefix}${Number(n) - 1}`, `${prefix}${Number(n) + 1}`];
}
