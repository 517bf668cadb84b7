/**
 * Issue 31, item 4: an upstream's resources and prompts are fetched with the calling user's own
 * credential, found as for their tool calls, and bounded like tool results.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { describe, expect, it, onTestFinished } from 'vitest';
import { connectV1, connectV2, startMcpGateway } from '#test/mcp/mcp-test-kit.js';
import { addConnection } from '#test/upstream/connections.js';
import { digest } from '#test/upstream/fake-upstream.js';
import { registerSource } from '#test/upstream/register-source.js';

/**
 * An MCP server (SDK v1, stateless Streamable HTTP) with a tool `ping`, a resource `whoami://me`
 * answering a digest of the `X-Api-Key` it was sent, a resource `echo://key` answering the key, a resource `big://blob` of `bigBytes`
 * characters, and a prompt `greet` naming the same digest.
 */
async function startKeyedUpstream(bigBytes: number): Promise<string> {
  const http = createServer(async (request, response) => {
    const key = request.headers['x-api-key'];
    const who = digest(typeof key === 'string' ? key : undefined);
    const server = new McpServer({ name: 'keyed', version: '1.0.0' });
    server.registerTool('ping', { description: 'Answers pong' }, async () => ({
      content: [{ type: 'text', text: 'pong' }],
    }));
    server.registerResource('me', 'whoami://me', { mimeType: 'text/plain' }, async (uri) => ({
      contents: [{ uri: uri.href, text: who }],
    }));
    // A careless (or hostile) upstream that says back the key it was sent.
    server.registerResource('echo', 'echo://key', { mimeType: 'text/plain' }, async (uri) => ({
      contents: [{ uri: uri.href, text: `your key is ${String(key)}` }],
    }));
    server.registerResource('big', 'big://blob', { mimeType: 'text/plain' }, async (uri) => ({
      contents: [{ uri: uri.href, text: 'x'.repeat(bigBytes) }],
    }));
    server.registerPrompt('greet', { description: 'Greets the caller' }, async () => ({
      messages: [{ role: 'user', content: { type: 'text', text: `hello ${who}` } }],
    }));
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    response.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(request, response);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  onTestFinished(() => new Promise<void>((resolve) => http.close(() => resolve())));
  return `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
}

describe("upstream resources with the caller's credential (issue 31)", { timeout: 90_000 }, () => {
  it("reads each user's resources and prompts with that user's own key, never another's", async () => {
    const url = await startKeyedUpstream(10);
    const mcp = await startMcpGateway({ env: { GATEWAY_UPSTREAM_ALLOW_PRIVATE: 'true' } });
    const alice = await mcp.user({ admin: true });
    const bob = await mcp.user({ admin: true });
    await addConnection(mcp.gateway, { userId: alice.id, toolId: 'keyed', secret: 'alice-key-1' });
    await addConnection(mcp.gateway, { userId: bob.id, toolId: 'keyed', secret: 'bob-key-2' });
    const registered = await mcp.gateway.request('POST', '/api/registry/sources', {
      as: alice,
      body: {
        type: 'mcp',
        id: 'keyed',
        namespace: 'keyed',
        url,
        auth: { kind: 'header', provider: 'keyed', header: 'X-Api-Key' },
      },
    });
    expect(registered.status).toBe(201);

    for (const [user, key] of [
      [alice, 'alice-key-1'],
      [bob, 'bob-key-2'],
    ] as const) {
      const { client: v1 } = await connectV1(mcp.url, user.mcpToken);
      const v2 = await connectV2(mcp.url, user.mcpToken);
      for (const client of [v1, v2]) {
        const read = await client.readResource({ uri: 'keyed+whoami://me' });
        expect(read.contents).toEqual([{ uri: 'keyed+whoami://me', text: digest(key) }]);
        const prompt = await client.getPrompt({ name: 'keyed.greet' });
        expect(JSON.stringify(prompt.messages)).toContain(`hello ${digest(key)}`);
        // The key sent is masked in what comes back, as in a tool result.
        const echoed = await client.readResource({ uri: 'keyed+echo://key' });
        expect(echoed.contents).toEqual([
          { uri: 'keyed+echo://key', text: 'your key is [redacted]' },
        ]);
      }
    }

    // A user without a key of their own is told how to connect, and nothing is sent.
    const carol = await mcp.user({ admin: true });
    const v2 = await connectV2(mcp.url, carol.mcpToken);
    await expect(v2.readResource({ uri: 'keyed+whoami://me' })).rejects.toThrow(
      /gateway connect keyed/,
    );
  });

  it('refuses a resource larger than GATEWAY_UPSTREAM_MAX_BYTES, as a tool result', async () => {
    const url = await startKeyedUpstream(64 * 1024);
    const mcp = await startMcpGateway({
      env: { GATEWAY_UPSTREAM_ALLOW_PRIVATE: 'true', GATEWAY_UPSTREAM_MAX_BYTES: '16384' },
    });
    const registered = await registerSource(mcp.url, {
      type: 'mcp',
      id: 'keyed',
      namespace: 'keyed',
      url,
    });
    expect(registered.status).toBe(201);
    const alice = await mcp.user({ admin: true });
    const client = await connectV2(mcp.url, alice.mcpToken);
    const small = await client.readResource({ uri: 'keyed+whoami://me' });
    expect(small.contents).toHaveLength(1);
    const error = await client.readResource({ uri: 'keyed+big://blob' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(/source "keyed".*(too large|larger|bytes)/);
    expect((error as Error).message).not.toContain('xxxxxxxx');
  });
});
