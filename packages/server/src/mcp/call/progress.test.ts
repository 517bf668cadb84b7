import { ProgressNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { createInteractionPlugin } from '#test/mcp/interaction-plugin.js';
import { connectV1, connectV2, startMcpGateway } from '#test/mcp/mcp-test-kit.js';
import { rememberSecret } from '#test/support/known-secrets.js';

const COPY = { name: 'calls.files.copy', arguments: { files: ['a.txt', 'b.txt'] } };
/** What `calls.files.copy` reports, less the report that goes backwards. */
const REPORTED = [
  { progress: 0, total: 2, message: 'Starting' },
  { progress: 1, total: 2, message: 'Copied a.txt' },
  { progress: 2, total: 2, message: 'Copied b.txt' },
];

async function start() {
  const gw = await startMcpGateway({ plugins: [createInteractionPlugin()] });
  return { gw, alice: await gw.user({ admin: true }) };
}

const withoutToken = ({ progress, total, message }: Record<string, unknown>) => ({
  progress,
  total,
  message,
});

describe('progress: call.reportProgress reaches the client that asked for it', () => {
  it('sends increasing notifications/progress to a 2025 client on its session', async () => {
    const { alice, gw } = await start();
    const { client } = await connectV1(gw.url, alice.mcpToken);
    const updates: Record<string, unknown>[] = [];
    const result = await client.callTool(COPY, undefined, {
      onprogress: (update) => updates.push(update),
    });
    expect(result.isError).toBeFalsy();
    expect(updates.map(withoutToken)).toEqual(REPORTED);
  });

  // Issue 33: gateway.call_tool on a discovery endpoint runs the tool as a direct call would.
  it('sends them through gateway.call_tool of a discovery endpoint, to both clients', async () => {
    const { alice, gw } = await start();
    const created = await gw.gateway.request('POST', '/api/connections/mcp-endpoints', {
      as: alice,
      body: { userId: alice.id, name: 'discovery', mode: 'discovery' },
    });
    const { token } = (await created.json()) as { token: string };
    rememberSecret(token);
    const viaMeta = { name: 'gateway.call_tool', arguments: COPY };
    const { client } = await connectV1(gw.url, token);
    const v1: Record<string, unknown>[] = [];
    const result = await client.callTool(viaMeta, undefined, {
      onprogress: (update) => v1.push(update),
    });
    expect(result.isError).toBeFalsy();
    expect(v1.map(withoutToken)).toEqual(REPORTED);
    const v2Client = await connectV2(gw.url, token);
    const v2: Record<string, unknown>[] = [];
    const v2Result = await v2Client.callTool(viaMeta, { onprogress: (update) => v2.push(update) });
    expect(v2Result.isError).toBeFalsy();
    expect(v2.map(withoutToken)).toEqual(REPORTED);
  });

  it('sends them to a 2026-07-28 client too', async () => {
    const { alice, gw } = await start();
    const client = await connectV2(gw.url, alice.mcpToken);
    const updates: Record<string, unknown>[] = [];
    const result = await client.callTool(COPY, { onprogress: (update) => updates.push(update) });
    expect(result.isError).toBeFalsy();
    expect(updates.map(withoutToken)).toEqual(REPORTED);
  });

  it('sends them on the response stream of a 2025 request without a session', async () => {
    const { alice, gw } = await start();
    const response = await fetch(`${gw.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${alice.mcpToken}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-06-18',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 3,
        method: 'tools/call',
        params: { ...COPY, _meta: { progressToken: 'copy-1' } },
      }),
    });
    const messages = (await response.text())
      .split('\n')
      .filter((line) => line.startsWith('data: {'))
      .map((line) => JSON.parse(line.slice('data: '.length)) as Record<string, unknown>);
    expect(messages.slice(0, 3)).toEqual(
      REPORTED.map((params) => ({
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: 'copy-1', ...params },
      })),
    );
    expect(messages[3]).toMatchObject({ id: 3, result: { structuredContent: { copied: 2 } } });
  });

  it('sends nothing when the client sent no progressToken, and the call goes on', async () => {
    const { alice, gw } = await start();
    const { client } = await connectV1(gw.url, alice.mcpToken);
    const heard: unknown[] = [];
    client.setNotificationHandler(ProgressNotificationSchema, (notification) => {
      heard.push(notification);
    });
    const result = await client.callTool(COPY);
    expect(result.structuredContent).toEqual({ copied: 2 });
    expect(heard).toEqual([]);
  });
});
