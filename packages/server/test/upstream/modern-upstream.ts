import {
  createMcpHandler,
  inputRequired,
  inputResponse,
  McpServer,
  PROTOCOL_VERSION_META_KEY,
} from '@modelcontextprotocol/server';
import { onTestFinished } from 'vitest';
import { z } from 'zod';
// The gateway's own adapter: one adapter's web globals per process (node-adapter/web-globals.ts).
import { serve } from '../../src/http/node-adapter/index.js';

/** One POST a {@link ModernUpstream} received: the headers and envelope that say its revision. */
export interface ReceivedRequest {
  method: string;
  /** The JSON-RPC id it came with. */
  id: unknown;
  headers: {
    protocolVersion: string | undefined;
    mcpMethod: string | undefined;
    mcpName: string | undefined;
    authorization: string | undefined;
    sessionId: string | undefined;
    /** `Mcp-Param-Region` (SEP-2243), which the `routed` tool declares. */
    paramRegion: string | undefined;
  };
  /** `_meta["io.modelcontextprotocol/protocolVersion"]` of the request, if any. */
  envelopeVersion: unknown;
  /** The request's whole `_meta` (empty when it has none). */
  meta: Record<string, unknown>;
  /** A `tools/call`'s arguments. */
  arguments: unknown;
  /** Whether it carried `inputResponses`: a later round of an `input_required` call. */
  answered: boolean;
}

/** A started {@link startModernUpstream}. */
export interface ModernUpstream {
  url: string;
  received: ReceivedRequest[];
  /** How many `slow` calls have started: each listens for its stop from then on. */
  readonly started: number;
  /** How many `slow` calls saw their request cancelled. */
  readonly stopped: number;
  /** Lists one more tool and tells `subscriptions/listen` streams that the list changed. */
  addTool(name: string): void;
  /** How many `subscriptions/listen` streams are open. */
  readonly listening: number;
}

/**
 * An MCP server built as the MCP SDK v2 documents a stateless one (`createMcpHandler`, a new
 * `McpServer` per request), so it speaks 2026-07-28 and, to 2025 clients, the 2025 revision. Its
 * tools: `echo` (structured output), `chatty` (progress and log lines tagged with its `tag`,
 * `lines` of each, `pauseMs` apart), `form` (asks a form through `input_required`), `sample`
 * (asks the client's model through `input_required`), `nag` (asks again, forever), `slow`
 * (runs until stopped) and `routed` (its `region` argument declared as the `Mcp-Param-Region`
 * header, SEP-2243, which the SDK's server then requires on every call that passes one). Records every
 * request it receives; a `tools/call` whose `Authorization` is `refuse` is answered 401. Stopped
 * when the test ends.
 */
export async function startModernUpstream(
  options: { refuse?: string } = {},
): Promise<ModernUpstream> {
  const received: ReceivedRequest[] = [];
  let started = 0;
  let stopped = 0;
  const added: string[] = [];
  const handler = createMcpHandler(() => {
    const server = new McpServer(
      { name: 'modern-upstream', version: '1.0.0' },
      { capabilities: { logging: {} } },
    );
    server.registerTool(
      'echo',
      {
        description: 'Echoes the text.',
        inputSchema: z.object({ text: z.string() }),
        outputSchema: z.object({ text: z.string(), length: z.number() }),
      },
      async ({ text }) => ({
        content: [{ type: 'text', text: `echo: ${text}` }],
        structuredContent: { text, length: text.length },
      }),
    );
    server.registerTool(
      'chatty',
      {
        description: 'Reports progress and logs lines.',
        inputSchema: z.object({ tag: z.string(), lines: z.number(), pauseMs: z.number() }),
      },
      async ({ tag, lines, pauseMs }, ctx) => {
        const token = ctx.mcpReq._meta?.progressToken;
        for (let i = 1; i <= lines; i++) {
          await ctx.mcpReq.log('info', `${tag} line ${i}`);
          if (token !== undefined) {
            await ctx.mcpReq.notify({
              method: 'notifications/progress',
              params: { progressToken: token, progress: i, total: lines, message: `${tag} ${i}` },
            });
          }
          await new Promise((resolve) => setTimeout(resolve, pauseMs));
        }
        return { content: [{ type: 'text', text: `${tag} done` }] };
      },
    );
    server.registerTool(
      'form',
      { description: 'Asks for a name.', inputSchema: z.object({}) },
      async (_args, ctx) => {
        const answer = inputResponse(ctx.mcpReq.inputResponses, 'name');
        if (answer.kind === 'missing') {
          return inputRequired({
            inputRequests: {
              name: {
                method: 'elicitation/create',
                params: {
                  mode: 'form',
                  message: 'What is your name?',
                  requestedSchema: {
                    type: 'object',
                    properties: { name: { type: 'string', title: 'Name' } },
                    required: ['name'],
                  },
                },
              },
            },
          });
        }
        const name = answer.kind === 'elicit' ? answer.content?.name : undefined;
        return {
          content: [
            {
              type: 'text',
              text:
                answer.kind === 'elicit' && answer.action === 'accept'
                  ? `hello ${String(name)}`
                  : `no name (${answer.kind === 'elicit' ? answer.action : answer.kind})`,
            },
          ],
        };
      },
    );
    server.registerTool(
      'link',
      { description: 'Sends the user to a page (URL mode).', inputSchema: z.object({}) },
      async (_args, ctx) => {
        const answer = inputResponse(ctx.mcpReq.inputResponses, 'link');
        if (answer.kind === 'missing') {
          return inputRequired({
            inputRequests: {
              link: inputRequired.elicitUrl({
                message: 'Connect your bank',
                url: 'https://bank.example.com/connect?session=1',
              }),
            },
          });
        }
        return {
          content: [
            {
              type: 'text',
              text: `link ${answer.kind === 'elicit' ? answer.action : answer.kind}`,
            },
          ],
        };
      },
    );
    server.registerTool(
      'sample',
      { description: "Asks the client's model.", inputSchema: z.object({ prompt: z.string() }) },
      async ({ prompt }, ctx) => {
        const answer = inputResponse(ctx.mcpReq.inputResponses, 'model');
        if (answer.kind === 'missing') {
          return inputRequired({
            inputRequests: {
              model: {
                method: 'sampling/createMessage',
                params: {
                  messages: [{ role: 'user', content: { type: 'text', text: prompt } }],
                  maxTokens: 50,
                },
              },
            },
          });
        }
        const said =
          answer.kind === 'sampling' && !Array.isArray(answer.result.content)
            ? answer.result.content
            : undefined;
        return {
          content: [
            { type: 'text', text: `model said: ${said?.type === 'text' ? said.text : '?'}` },
          ],
        };
      },
    );
    server.registerTool(
      'nag',
      { description: 'Asks again whatever the answer.', inputSchema: z.object({}) },
      async () =>
        inputRequired({
          inputRequests: {
            again: {
              method: 'elicitation/create',
              params: {
                mode: 'form',
                message: 'Once more?',
                requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } },
              },
            },
          },
        }),
    );
    server.registerTool(
      'slow',
      { description: 'Runs until stopped.', inputSchema: z.object({}) },
      async (_args, ctx) => {
        await new Promise<void>((resolve) => {
          ctx.mcpReq.signal.addEventListener(
            'abort',
            () => {
              stopped++;
              resolve();
            },
            { once: true },
          );
          started++;
        });
        return { content: [{ type: 'text', text: 'stopped' }] };
      },
    );
    server.registerTool(
      'routed',
      {
        description: 'Answers from the region its header names.',
        inputSchema: z.object({ region: z.string().meta({ 'x-mcp-header': 'Region' }) }),
      },
      async ({ region }) => ({ content: [{ type: 'text', text: `served in ${region}` }] }),
    );
    for (const name of added) {
      server.registerTool(
        name,
        { description: 'Added later.', inputSchema: z.object({}) },
        async () => ({
          content: [{ type: 'text', text: `${name} ran` }],
        }),
      );
    }
    return server;
  });
  const fetch = async (request: Request) => {
    const text = await request.text();
    const body = text === '' ? undefined : (JSON.parse(text) as unknown);
    if (request.method === 'POST' && isRecord(body) && typeof body.method === 'string') {
      const params = isRecord(body.params) ? body.params : {};
      const meta = isRecord(params._meta) ? params._meta : {};
      const header = (name: string) => request.headers.get(name) ?? undefined;
      received.push({
        method: body.method,
        id: body.id,
        headers: {
          protocolVersion: header('mcp-protocol-version'),
          mcpMethod: header('mcp-method'),
          mcpName: header('mcp-name'),
          authorization: header('authorization'),
          sessionId: header('mcp-session-id'),
          paramRegion: header('mcp-param-region'),
        },
        envelopeVersion: meta[PROTOCOL_VERSION_META_KEY],
        meta,
        arguments: params.arguments,
        answered: params.inputResponses !== undefined,
      });
      const refused =
        options.refuse !== undefined &&
        body.method === 'tools/call' &&
        request.headers.get('authorization') === options.refuse;
      if (refused) return new Response('refused', { status: 401 });
    }
    return handler.fetch(request, body === undefined ? {} : { parsedBody: body });
  };
  const url = await new Promise<string>((resolve) => {
    const listening = serve({ fetch, hostname: '127.0.0.1', port: 0 }, (info) => {
      onTestFinished(
        () =>
          new Promise<void>((done) => {
            if ('closeAllConnections' in listening) listening.closeAllConnections();
            listening.close(() => done());
          }),
      );
      resolve(`http://127.0.0.1:${info.port}/mcp`);
    });
  });
  return {
    url,
    received,
    get started() {
      return started;
    },
    get stopped() {
      return stopped;
    },
    addTool(name) {
      added.push(name);
      handler.notify.toolsChanged();
    },
    get listening() {
      return received.filter((request) => request.method === 'subscriptions/listen').length;
    },
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
