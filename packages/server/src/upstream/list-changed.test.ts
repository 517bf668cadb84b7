/**
 * Issue 16: an upstream built with the MCP SDK that adds a tool tells its sessions
 * (`notifications/tools/list_changed`); the gateway fetches the list again at once, without
 * waiting for its schedule, and serves the new tool.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { describe, expect, it, onTestFinished } from 'vitest';
import { connectV2, startMcpGateway } from '../mcp/testing/mcp-test-kit.js';

/** An SDK MCP server over Streamable HTTP with sessions; `addTool` adds a tool to every session. */
async function startSdkUpstream(): Promise<{ url: string; addTool(name: string): void }> {
  const names = ['first'];
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
  };
}

describe('notifications/tools/list_changed', () => {
  it('makes the gateway fetch the tool list again and serve the new tool', async () => {
    const upstream = await startSdkUpstream();
    // No schedule: only the notification can bring the new tool.
    const gw = await startMcpGateway({
      env: { GATEWAY_UPSTREAM_ALLOW_PRIVATE: 'true', GATEWAY_UPSTREAM_REFRESH_SECONDS: '0' },
    });
    const registered = await gw.gateway.request('POST', '/api/registry/sources', {
      as: 'service',
      body: { type: 'mcp', id: 'sdk', namespace: 'sdk', url: upstream.url },
    });
    expect(registered.status).toBe(201);
    const alice = await gw.user({ admin: true });
    const client = await connectV2(gw.url, alice.mcpToken);
    const sdkTools = async () =>
      (await client.listTools()).tools
        .map((tool) => tool.name)
        .filter((name) => name.startsWith('sdk.'));
    expect(await sdkTools()).toEqual(['sdk.first']);

    upstream.addTool('second');
    await expect.poll(sdkTools, { timeout: 5000 }).toEqual(['sdk.first', 'sdk.second']);
    const result = await client.callTool({ name: 'sdk.second', arguments: {} });
    expect(result.content).toEqual([{ type: 'text', text: 'second ran' }]);
  });
});
