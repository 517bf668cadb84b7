import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CreateMessageResultSchema, ElicitResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { onTestFinished } from 'vitest';

/** A started {@link startSdkUpstream}. */
export interface SdkUpstream {
  url: string;
  /** Adds a tool to every session, which tells its client the list changed. */
  addTool(name: string): void;
  /**
   * Adds a resource `note://<name>` to every session (with `resources`), which tells its client
   * the resource list changed.
   */
  addResource(name: string): void;
  /** How many sessions clients opened (`initialize`s answered). */
  readonly sessions: number;
}

/**
 * An MCP server built with the MCP SDK v1 over Streamable HTTP with sessions: the 2025 revision
 * only, as most servers in the wild today. Its tools: `first` (answers `first ran`), those added
 * with `addTool`; with `sessionTool: n`, `session` (waits until n calls of it have come, at most
 * a second, then answers the id of the session it ran in); with `ask`, `ask`, which asks its
 * client a yes-or-no question in the words `ask` gives each time (form elicitation), then
 * answers `<action>: <question>`; with `prompt`,
 * `summarize`, which asks its client's model (sampling) in the words `prompt` gives each time,
 * then answers `<model's text>: <prompt>`; with `link`, `link`, which asks its client to open
 * `link.url` (URL-mode elicitation, id `step-1`), and once accepted says the step is done
 * (`notifications/elicitation/complete`) for `link.alsoDone` (ids it never asked, if any), then
 * for `step-1`, then answers `<action>`. Stopped when the test ends.
 */
export async function startSdkUpstream(
  options: {
    sessionTool?: number;
    ask?: () => string;
    prompt?: () => string;
    link?: { url: string; alsoDone?: string[] };
    resources?: boolean;
  } = {},
): Promise<SdkUpstream> {
  const names = ['first'];
  const resources = options.resources === true ? ['first'] : [];
  const registerResource = (server: McpServer, name: string) =>
    server.registerResource(name, `note://${name}`, {}, async (uri) => ({
      contents: [{ uri: uri.href, text: `the ${name} note` }],
    }));
  let sessionCalls = 0;
  let allSessionCalls = () => {};
  const sessionCallsIn = new Promise<void>((resolve) => {
    allSessionCalls = resolve;
  });
  const servers = new Set<McpServer>();
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const register = (server: McpServer, name: string) =>
    server.registerTool(name, { description: `The ${name} tool` }, async () => ({
      content: [{ type: 'text', text: `${name} ran` }],
    }));
  const http = createServer(async (request, response) => {
    const sessionId = request.headers['mcp-session-id'];
    const existing = typeof sessionId === 'string' ? transports.get(sessionId) : undefined;
    if (existing !== undefined) {
      await existing.handleRequest(request, response);
      return;
    }
    const server = new McpServer({ name: 'sdk-upstream', version: '1.0.0' });
    for (const name of names) register(server, name);
    for (const name of resources) registerResource(server, name);
    if (options.sessionTool !== undefined) {
      server.registerTool('session', { description: 'Answers its session' }, async (extra) => {
        sessionCalls += 1;
        if (sessionCalls >= (options.sessionTool ?? 0)) allSessionCalls();
        // Each call waits for the others, so that they overlap; a gateway that sent them one
        // after another fails its test a second later rather than hanging.
        await Promise.race([
          sessionCallsIn,
          new Promise((resolve) => setTimeout(resolve, 1000).unref()),
        ]);
        return { content: [{ type: 'text', text: String(extra.sessionId) }] };
      });
    }
    const { ask } = options;
    if (ask !== undefined) {
      server.registerTool('ask', { description: 'Asks a question first' }, async (extra) => {
        const message = ask();
        // On the call's own stream, as servers asking during a call do.
        const answer = await extra.sendRequest(
          {
            method: 'elicitation/create',
            params: {
              message,
              requestedSchema: { type: 'object', properties: { sure: { type: 'boolean' } } },
            },
          },
          ElicitResultSchema,
        );
        return { content: [{ type: 'text', text: `${answer.action}: ${message}` }] };
      });
    }
    const { link } = options;
    if (link !== undefined) {
      server.registerTool('link', { description: 'Asks to open a link first' }, async (extra) => {
        const answer = await extra.sendRequest(
          {
            method: 'elicitation/create',
            params: { mode: 'url', message: 'Sign in', url: link.url, elicitationId: 'step-1' },
          },
          ElicitResultSchema,
        );
        if (answer.action === 'accept') {
          for (const elicitationId of [...(link.alsoDone ?? []), 'step-1']) {
            await extra.sendNotification({
              method: 'notifications/elicitation/complete',
              params: { elicitationId },
            });
          }
        }
        return { content: [{ type: 'text', text: answer.action }] };
      });
    }
    const { prompt } = options;
    if (prompt !== undefined) {
      server.registerTool('summarize', { description: 'Asks the model' }, async (extra) => {
        const text = prompt();
        const answer = await extra.sendRequest(
          {
            method: 'sampling/createMessage',
            params: {
              messages: [{ role: 'user', content: { type: 'text', text } }],
              maxTokens: 50,
            },
          },
          CreateMessageResultSchema,
        );
        const said = answer.content.type === 'text' ? answer.content.text : answer.content.type;
        return { content: [{ type: 'text', text: `${said}: ${text}` }] };
      });
    }
    servers.add(server);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        transports.set(id, transport);
      },
    });
    await server.connect(transport);
    await transport.handleRequest(request, response);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  onTestFinished(async () => {
    for (const server of servers) await server.close();
    http.closeAllConnections();
    await new Promise<void>((resolve) => http.close(() => resolve()));
  });
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    addTool(name) {
      names.push(name);
      for (const server of servers) register(server, name);
    },
    addResource(name) {
      resources.push(name);
      for (const server of servers) registerResource(server, name);
    },
    get sessions() {
      return transports.size;
    },
  };
}
