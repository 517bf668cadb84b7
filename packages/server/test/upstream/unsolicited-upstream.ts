import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { onTestFinished } from 'vitest';

/** A JSON-RPC message as the upstream writes or reads it. */
type Message = Record<string, unknown>;

/** A started {@link startUnsolicitedUpstream}. */
export interface UnsolicitedUpstream {
  url: string;
  /**
   * What it writes on its answer to the next `tools/list` before the list (requests among them
   * wait for their answer, at most 5 s); undefined: the list alone.
   */
  onList: Message[] | undefined;
  /** What it writes on a `slow` call's stream when the call comes in, before it holds it. */
  onSlow: Message[];
  /** What it writes on a `slow` call's stream once released, before its answer. */
  beforeAnswer: Message[];
  /** Writes `message` on every open session `GET` stream; how many took it. */
  push(message: Message): number;
  /** The JSON-RPC id and `_meta.progressToken` of each `slow` call, in the order they came. */
  readonly slowCalls: { id: unknown; progressToken: unknown }[];
  /** Resolves once a `slow` call is held. */
  slowHeld(): Promise<void>;
  /** Answers every held `slow` call (`slow done`). */
  release(): void;
  /** Resolves once a session's `GET` stream is open. */
  streamOpen(): Promise<void>;
  /** The answer the gateway sent to the upstream's request `id`, once it has. */
  answerTo(id: string): Promise<Message>;
}

/**
 * A hostile 2025 MCP server with sessions on 127.0.0.1, written by hand so that a test says what it
 * sends unasked, and where: on the session's `GET` stream ({@link UnsolicitedUpstream.push}), on
 * the stream of a `tools/list` answer (`onList`), or on a `slow` call's own stream (`onSlow`,
 * `beforeAnswer`); `astray` answers as JSON, to another request id. It records the gateway's answers to its requests. Stopped when the test ends.
 */
export async function startUnsolicitedUpstream(): Promise<UnsolicitedUpstream> {
  const streams = new Set<ServerResponse>();
  const held: { response: ServerResponse; id: unknown }[] = [];
  const answers = new Map<string, Message>();
  const waiting = new Map<string, ((answer: Message) => void)[]>();
  const slowCalls: UnsolicitedUpstream['slowCalls'] = [];
  let heldOne = signal();
  const streamOpened = signal();
  const sse = (response: ServerResponse, message: Message) =>
    response.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
  const answerTo = (id: string) =>
    new Promise<Message>((resolve) => {
      const known = answers.get(id);
      if (known !== undefined) resolve(known);
      else waiting.set(id, [...(waiting.get(id) ?? []), resolve]);
    });
  const upstream: UnsolicitedUpstream = {
    url: '',
    onList: undefined,
    onSlow: [],
    beforeAnswer: [],
    push(message) {
      for (const stream of streams) sse(stream, message);
      return streams.size;
    },
    slowCalls,
    slowHeld: () => heldOne.promise,
    release() {
      for (const { response, id } of held.splice(0)) {
        for (const message of upstream.beforeAnswer) sse(response, message);
        const result = { content: [{ type: 'text', text: 'slow done' }] };
        sse(response, { jsonrpc: '2.0', id, result });
        response.end();
      }
    },
    streamOpen: () => streamOpened.promise,
    answerTo,
  };
  const server = createServer(async (request, response) => {
    if (request.method === 'GET') {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.flushHeaders();
      streams.add(response);
      response.on('close', () => streams.delete(response));
      streamOpened.resolve();
      return;
    }
    if (request.method === 'DELETE') {
      response.writeHead(200).end();
      return;
    }
    const message = JSON.parse(await bodyOf(request)) as Message;
    const id = message.id;
    const method = typeof message.method === 'string' ? message.method : undefined;
    if (method === undefined) {
      // The gateway's answer to one of the upstream's requests.
      const key = String(id);
      answers.set(key, message);
      for (const resolve of waiting.get(key) ?? []) resolve(message);
      waiting.delete(key);
      response.writeHead(202).end();
      return;
    }
    if (id === undefined) {
      response.writeHead(202).end();
      return;
    }
    const json = (result: Message, headers: Record<string, string> = {}) => {
      response.writeHead(200, { 'content-type': 'application/json', ...headers });
      response.end(JSON.stringify({ jsonrpc: '2.0', id, result }));
    };
    const params = (message.params ?? {}) as Message;
    if (method === 'initialize') {
      json(
        {
          protocolVersion: params.protocolVersion ?? '2025-06-18',
          capabilities: { tools: { listChanged: true }, logging: {} },
          serverInfo: { name: 'unsolicited', version: '1.0.0' },
        },
        { 'mcp-session-id': randomUUID() },
      );
      return;
    }
    if (method === 'tools/list') {
      const tools = {
        tools: ['slow', 'astray'].map((name) => ({
          name,
          inputSchema: { type: 'object', properties: {} },
        })),
      };
      const before = upstream.onList;
      if (before === undefined) {
        json(tools);
        return;
      }
      upstream.onList = undefined;
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const one of before) sse(response, one);
      const asked = before.filter((one) => one.id !== undefined).map((one) => String(one.id));
      await Promise.race([
        Promise.all(asked.map(answerTo)),
        new Promise((resolve) => setTimeout(resolve, 5000).unref()),
      ]);
      sse(response, { jsonrpc: '2.0', id, result: tools });
      response.end();
      return;
    }
    if (method === 'tools/call' && params.name === 'slow') {
      slowCalls.push({ id, progressToken: (params._meta as Message | undefined)?.progressToken });
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const one of upstream.onSlow) sse(response, one);
      held.push({ response, id });
      heldOne.resolve();
      heldOne = signal();
      return;
    }
    if (method === 'tools/call' && params.name === 'astray') {
      // A JSON answer, to another request than the one it answers.
      response.writeHead(200, { 'content-type': 'application/json' });
      const result = { content: [{ type: 'text', text: 'astray' }] };
      response.end(JSON.stringify({ jsonrpc: '2.0', id: `${String(id)}-other`, result }));
      return;
    }
    json({});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  upstream.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  return upstream;
}

function signal() {
  let resolve = () => {};
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

async function bodyOf(request: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of request) text += String(chunk);
  return text;
}
