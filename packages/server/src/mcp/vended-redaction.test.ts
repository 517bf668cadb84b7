// Issue 14 item 2: a value vended to a tool never leaves the gateway through the tool.
import {
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { LOG_LEVEL_META_KEY } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { createLeakingProbePlugin, LEAK_ENDINGS } from '#test/mcp/leaking-probe-plugin.js';
import { connectV1, connectV2, startMcpGateway } from '#test/mcp/mcp-test-kit.js';
import { rememberSecret } from '#test/support/known-secrets.js';
import { leakForms, REDACTED } from '../http/redact.js';

const CONNECTION_KEY = `vault-conn-${crypto.randomUUID()}`;
const SERVER_KEY = `wx-server-${crypto.randomUUID()}`;
const KEYS = { vault: CONNECTION_KEY, weatherapi: SERVER_KEY } as const;

/** Every key, and every form of it a leak would take, found in `text`. */
function leaksIn(text: string): string[] {
  return Object.values(KEYS).flatMap((key) => leakForms(key).filter((form) => text.includes(form)));
}

async function startProbe() {
  // Remembered for the leak check of `leak-check.setup.ts` too (the gateway remembers them as
  // they pass: the connection's secret in its request, the server key by its variable's name).
  rememberSecret(CONNECTION_KEY);
  rememberSecret(SERVER_KEY);
  const flush = { current: async () => {} };
  const gw = await startMcpGateway({
    plugins: [createLeakingProbePlugin({ beforeVending: () => flush.current() })],
    env: { WEATHERAPI_API_KEY: SERVER_KEY },
  });
  const alice = await gw.user({ admin: true });
  const created = await gw.gateway.request('POST', '/api/connections', {
    as: alice,
    body: { userId: alice.id, toolId: 'vault', instanceName: 'Main', secret: CONNECTION_KEY },
  });
  expect(created.status).toBe(201);
  // The record's first write is stored before the key is vended, as it is for a slow call.
  flush.current = () => gw.gateway.services.executions.flush();
  return { gw, alice };
}

describe('values vended to a tool are masked in everything the call lets out', () => {
  it('over a 2025 session: logs, notifications, progress, errors, results, questions, records', async () => {
    const { gw, alice } = await startProbe();
    const { client } = await connectV1(gw.url, alice.mcpToken, { elicitation: true });
    const notifications: unknown[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      notifications.push(n.params);
    });
    const questions: unknown[] = [];
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      questions.push(request.params);
      return { action: 'accept', content: { approve: true } };
    });
    await client.setLoggingLevel('debug');

    const results: unknown[] = [];
    const progress: unknown[] = [];
    for (const provider of ['vault', 'weatherapi'] as const) {
      for (const ending of LEAK_ENDINGS) {
        results.push(
          await client.callTool(
            { name: 'probe.leak.key', arguments: { provider, ending } },
            undefined,
            { onprogress: (update) => progress.push(update) },
          ),
        );
      }
      results.push(
        await client.callTool({ name: 'probe.leak.structured', arguments: { provider } }),
      );
    }
    // A client sending the key back as an argument.
    await client.callTool({
      name: 'probe.leak.key',
      arguments: { provider: 'vault', ending: 'return', note: `re ${CONNECTION_KEY}` },
    });
    await gw.gateway.services.executions.flush();
    const response = await gw.gateway.request('GET', `/api/executions?userId=${alice.id}`, {
      as: alice,
    });
    const { executions } = (await response.json()) as {
      executions: { toolPath: string; outcome: string; error: string | null; arguments: unknown }[];
    };

    const seen = {
      log: gw.gateway.logs(),
      notifications: JSON.stringify(notifications),
      progress: JSON.stringify(progress),
      results: JSON.stringify(results),
      questions: JSON.stringify(questions),
      executions: JSON.stringify(executions),
    };
    for (const [where, text] of Object.entries(seen)) {
      expect({ where, leaks: leaksIn(text) }).toEqual({ where, leaks: [] });
    }

    // Everything was really tried: the probe ran, logged, reported, asked and failed as meant.
    expect(executions).toHaveLength(2 * (LEAK_ENDINGS.length + 1) + 1);
    expect(executions[0]?.arguments).toEqual({
      provider: 'vault',
      ending: 'return',
      note: `re ${REDACTED}`,
    });
    expect(notifications).toHaveLength(2 * 2 * LEAK_ENDINGS.length + 2);
    expect(notifications[0]).toMatchObject({
      level: 'info',
      logger: 'probe.leak.key',
      data: {
        message: `calling upstream with ${REDACTED}`,
        sentence: `the key is ${REDACTED}, do not tell`,
        upstream: { request: { headers: [`x-api-key: ${REDACTED}`] } },
        url: `https://api.example.test/v1?key=${REDACTED}`,
        [REDACTED]: 'the key as a field name',
      },
    });
    expect(progress).toContainEqual({ progress: 1, total: 2, message: `using ${REDACTED}` });
    expect(questions).toHaveLength(2);
    expect(JSON.stringify(questions[0])).toContain(`Send ${REDACTED} to the upstream?`);
    expect(seen.log).toContain(`"msg":"calling upstream with ${REDACTED}"`);
    expect(seen.log).toContain('upstream rejected [redacted]');

    const [returned, thrown, toolError, authRequired, keyAsProvider, asked, structured] = results;
    // The result is masked too (a prompt-injected model could ask a tool to echo its key), and
    // only where the key was: a token-like field of the tool's own stays.
    expect(returned).toMatchObject({
      content: [{ type: 'text', text: expect.stringContaining(`"echo":"${REDACTED}"`) }],
    });
    expect(JSON.stringify(returned)).toContain('page-2-token-kept');
    expect(thrown).toMatchObject({ isError: true });
    expect(toolError).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: `upstream rejected key ${REDACTED}` }],
    });
    expect(authRequired).toMatchObject({
      isError: true,
      content: [
        { type: 'text', text: expect.stringContaining(`The key ${REDACTED} was revoked.`) },
      ],
    });
    // A key passed as a provider id is no declared provider (issue 14, item 1): refused, and the
    // refusal's echo of it masked.
    expect(keyAsProvider).toMatchObject({
      isError: true,
      content: [
        {
          type: 'text',
          text: expect.stringContaining(`asked for a credential of "${REDACTED}"`),
        },
      ],
    });
    expect(asked).toMatchObject({ content: [{ type: 'text', text: '{"approved":true}' }] });
    expect(structured).toMatchObject({
      structuredContent: { key: REDACTED, length: CONNECTION_KEY.length },
    });
    expect(executions.map((execution) => execution.error)).toContain(
      `upstream rejected key ${REDACTED}`,
    );
    expect(executions.map((execution) => execution.error)).toContainEqual(
      expect.stringContaining(`asked for a credential of "${REDACTED}"`),
    );
  });

  it('over 2026-07-28: log notifications, the server log and the result', async () => {
    const { gw, alice } = await startProbe();
    const client = await connectV2(gw.url, alice.mcpToken);
    const notifications: unknown[] = [];
    client.setNotificationHandler('notifications/message', (n) => {
      notifications.push(n.params);
    });
    const result = await client.callTool({
      name: 'probe.leak.key',
      arguments: { provider: 'vault', ending: 'return' },
      _meta: { [LOG_LEVEL_META_KEY]: 'info' },
    });
    expect(result.isError).toBeFalsy();
    expect(JSON.stringify(result)).toContain(REDACTED);
    expect(leaksIn(JSON.stringify(result))).toEqual([]);
    expect(leaksIn(gw.gateway.logs())).toEqual([]);
    expect(gw.gateway.logs()).toContain(`calling upstream with ${REDACTED}`);
    // The log level rides on the request's envelope.
    expect(notifications).toHaveLength(2);
    expect(JSON.stringify(notifications)).toContain(`calling upstream with ${REDACTED}`);
    expect(leaksIn(JSON.stringify(notifications))).toEqual([]);
  });

  it('leaves a call that is vended nothing as it was', async () => {
    const gw = await startMcpGateway();
    const alice = await gw.user({ admin: true });
    const { client } = await connectV1(gw.url, alice.mcpToken);
    const result = await client.callTool({ name: 'demo.echo.say', arguments: { text: 'hi' } });
    expect(result.structuredContent).toEqual({ text: 'hi', userId: alice.id });
  });
});
