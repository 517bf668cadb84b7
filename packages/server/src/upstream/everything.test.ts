/**
 * Issue 16: an MCP server nobody here wrote, `@modelcontextprotocol/server-everything` (npm),
 * behind the gateway over Streamable HTTP and over stdio: its tools listed under the namespace,
 * called with their results, structured output, progress and log lines passing through, and
 * each call recorded.
 */
import { rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it, onTestFinished } from 'vitest';
import {
  connectV1,
  connectV2,
  recordsOf,
  startMcpGateway,
  waitForApproval,
} from '#test/mcp/mcp-test-kit.js';
import { TEST_SERVICE_SECRET } from '#test/support/test-gateway.js';
import { EVERYTHING_BIN, startEverythingHttp } from '#test/upstream/everything.js';
import { gatewayServing, registerSource } from '#test/upstream/register-source.js';

const ALLOW_PRIVATE = { GATEWAY_UPSTREAM_ALLOW_PRIVATE: 'true' };

/** A gateway serving server-everything over Streamable HTTP as source `ev` (namespace `ev`). */
async function gatewayWithEverything() {
  const upstream = await startEverythingHttp();
  return gatewayServing(upstream.url, 'ev');
}

type Gateway = Awaited<ReturnType<typeof gatewayWithEverything>>;

/** Waits for `user`'s one pending approval, decides it, and gives back what it asked. */
async function decide(
  gw: Gateway,
  user: Awaited<ReturnType<Gateway['user']>>,
  decision: 'approve' | 'deny',
): Promise<string | undefined> {
  const pending = await waitForApproval(gw, user);
  const decided = await gw.gateway.request('POST', `/api/approvals/${pending.id}`, {
    as: user,
    body: { decision },
  });
  expect(decided.status).toBe(200);
  return pending.message;
}

describe('server-everything over Streamable HTTP', () => {
  it('serves its tools under the namespace: list, call, structured output, progress, records', async () => {
    const upstream = await startEverythingHttp();
    const gw = await startMcpGateway({ env: ALLOW_PRIVATE });
    const registered = await registerSource(gw.url, {
      type: 'mcp',
      id: 'everything',
      namespace: 'everything',
      url: upstream.url,
    });
    expect(registered.status).toBe(201);
    const body = (await registered.json()) as { source: unknown; tools: string[] };
    expect(body.source).toMatchObject({ id: 'everything', type: 'mcp', pluginId: null });
    expect(body.tools).toEqual(
      expect.arrayContaining([
        'everything.echo',
        'everything.get_sum',
        'everything.get_structured_content',
        'everything.trigger_long_running_operation',
      ]),
    );

    const alice = await gw.user({ admin: true });
    const client = await connectV2(gw.url, alice.mcpToken);
    const { tools } = await client.listTools();
    const names = tools.map((tool) => tool.name);
    expect(names).toContain('everything.echo');
    expect(names).toContain('demo.echo.say');

    const echo = await client.callTool({
      name: 'everything.echo',
      arguments: { message: 'hello upstream' },
    });
    expect(echo.isError).toBeFalsy();
    expect(echo.content).toEqual([{ type: 'text', text: 'Echo: hello upstream' }]);

    const sum = await client.callTool({ name: 'everything.get_sum', arguments: { a: 2, b: 40 } });
    expect(JSON.stringify(sum.content)).toContain('42');

    const structured = await client.callTool({
      name: 'everything.get_structured_content',
      arguments: { location: 'New York' },
    });
    expect(structured.isError).toBeFalsy();
    expect(structured.structuredContent).toMatchObject({ temperature: expect.any(Number) });

    const progress: number[] = [];
    const long = await client.callTool(
      {
        name: 'everything.trigger_long_running_operation',
        arguments: { duration: 0.6, steps: 3 },
      },
      { onprogress: (update) => progress.push(update.progress) },
    );
    expect(long.isError).toBeFalsy();
    expect(progress).toEqual([1, 2, 3]);

    // The upstream's own refusal is a clear error result, not a protocol error.
    const invalid = await client.callTool({
      name: 'everything.get_sum',
      arguments: { a: 'two' },
    });
    expect(invalid.isError).toBe(true);

    const rows = await gw.gateway.services.database.db
      .selectFrom('executions')
      .select(['tool_path', 'outcome', 'user_id'])
      .where('tool_path', 'like', 'everything.%')
      .orderBy('started_at')
      .execute();
    expect(rows.map((row) => [row.tool_path, row.outcome])).toEqual([
      ['everything.echo', 'ok'],
      ['everything.get_sum', 'ok'],
      ['everything.get_structured_content', 'ok'],
      ['everything.trigger_long_running_operation', 'ok'],
      ['everything.get_sum', 'error'],
    ]);
    expect(rows.every((row) => row.user_id === alice.id)).toBe(true);

    const listed = await fetch(`${gw.url}/api/registry/sources`, {
      headers: { authorization: `Bearer ${TEST_SERVICE_SECRET}` },
    });
    const sources = (await listed.json()) as {
      sources: { id: string; upstream?: { health: { state: string }; mappedNames: object } }[];
    };
    const everything = sources.sources.find((source) => source.id === 'everything');
    expect(everything?.upstream?.health.state).toBe('ok');
    expect(everything?.upstream?.mappedNames).toMatchObject({ 'everything.get_sum': 'get-sum' });
  });

  it("relays the upstream's sampling requests to the calling user's client", async () => {
    const gw = await gatewayWithEverything();
    const alice = await gw.user({ admin: true });
    const prompts: string[] = [];

    // A 2025 client on a session: asked on its session while the call waits.
    const { client: onSession } = await connectV1(gw.url, alice.mcpToken, { sampling: true });
    onSession.setRequestHandler(CreateMessageRequestSchema, async (request) => {
      prompts.push(JSON.stringify(request.params.messages));
      return {
        role: 'assistant',
        content: { type: 'text', text: 'the model says 42' },
        model: 'test-model',
      };
    });
    const sampled = await onSession.callTool({
      name: 'ev.trigger_sampling_request',
      arguments: { prompt: 'what is six times seven?', maxTokens: 20 },
    });
    expect(sampled.isError).toBeFalsy();
    expect(JSON.stringify(sampled.content)).toContain('the model says 42');
    expect(prompts[0]).toContain('what is six times seven?');

    // A 2026-07-28 client: the call ends with input_required and runs again with the answer.
    const modern = await connectV2(gw.url, alice.mcpToken, { sampling: true });
    modern.setRequestHandler('sampling/createMessage', async () => ({
      role: 'assistant',
      content: { type: 'text', text: 'modern model answer' },
      model: 'test-model',
    }));
    const again = await modern.callTool({
      name: 'ev.trigger_sampling_request',
      arguments: { prompt: 'and now?', maxTokens: 20 },
    });
    expect(again.isError).toBeFalsy();
    expect(JSON.stringify(again.content)).toContain('modern model answer');
  });

  it("relays the upstream's form questions to the calling user's client", async () => {
    const gw = await gatewayWithEverything();
    const alice = await gw.user({ admin: true });
    const { client } = await connectV1(gw.url, alice.mcpToken, { elicitation: true });
    const asked: string[] = [];
    let answer: 'accept' | 'decline' = 'accept';
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params.message);
      return answer === 'accept'
        ? { action: 'accept', content: { name: 'Ada Lovelace', check: true } }
        : { action: 'decline' };
    });
    const accepted = await client.callTool({
      name: 'ev.trigger_elicitation_request',
      arguments: {},
    });
    expect(accepted.isError).toBeFalsy();
    expect(JSON.stringify(accepted.content)).toContain('Ada Lovelace');
    expect(asked[0]).toContain('Please provide inputs for the following fields');

    answer = 'decline';
    const declined = await client.callTool({
      name: 'ev.trigger_elicitation_request',
      arguments: {},
    });
    expect(JSON.stringify(declined.content)).toContain('User declined');
    const rows = await recordsOf(gw, 'ev.trigger_elicitation_request');
    expect(rows.map((row) => row.approval)).toEqual(['approved', 'declined']);
  });

  it("relays the upstream's links (URL-mode elicitation) to clients that take them, else to the approvals list", async () => {
    const gw = await gatewayWithEverything();
    const alice = await gw.user({ admin: true });
    const link = {
      url: 'https://auth.example.com/authorize?step=1',
      message: 'Sign in at the payment provider',
      elicitationId: 'el-1',
    };

    // A 2025 client on a session that takes links: asked on its session.
    const { client: onSession } = await connectV1(gw.url, alice.mcpToken, { elicitation: 'url' });
    const asked: unknown[] = [];
    onSession.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params);
      return { action: 'accept' };
    });
    const accepted = await onSession.callTool({
      name: 'ev.trigger_url_elicitation',
      arguments: link,
    });
    expect(accepted.isError).toBeFalsy();
    expect(JSON.stringify(accepted.content)).toContain('User completed the URL elicitation flow');
    // Who asks and where the link goes come first (issue 31).
    const labelled = `Upstream source ev, tool ev.trigger_url_elicitation, asks you to open a page at https://auth.example.com: ${link.message}`;
    expect(asked).toEqual([{ mode: 'url', ...link, message: labelled }]);

    // A 2026-07-28 client: input_required with the link, then the call again with the answer.
    const modern = await connectV2(gw.url, alice.mcpToken, { elicitation: 'url' });
    const modernAsked: unknown[] = [];
    modern.setRequestHandler('elicitation/create', async (request) => {
      modernAsked.push(request.params);
      return { action: 'decline' };
    });
    const declined = await modern.callTool({ name: 'ev.trigger_url_elicitation', arguments: link });
    expect(JSON.stringify(declined.content)).toContain('User declined to open the URL');
    expect(modernAsked).toMatchObject([{ mode: 'url', url: link.url, message: labelled }]);

    // A client that takes no links: the approvals list shows the link, and approving accepts.
    const { client: plain } = await connectV1(gw.url, alice.mcpToken);
    const waiting = plain.callTool({ name: 'ev.trigger_url_elicitation', arguments: link });
    expect(await decide(gw, alice, 'approve')).toBe(
      `${labelled}\n\n${link.url}\n\nOpen this address in your browser; approve once you have done what it asks, or deny.`,
    );
    expect(JSON.stringify((await waiting).content)).toContain(
      'User completed the URL elicitation flow',
    );

    const rows = await recordsOf(gw, 'ev.trigger_url_elicitation');
    expect(rows.map((row) => row.approval)).toEqual(['approved', 'declined', 'approved']);
  });

  it('relays its required links (-32042) to clients that take them, else through the approvals list', async () => {
    const gw = await gatewayWithEverything();
    const alice = await gw.user({ admin: true });
    const name = 'ev.trigger_url_elicitation';
    const args = (step: number) => ({
      url: `https://auth.example.com/authorize?step=${step}`,
      message: 'Finish signing in',
      errorPath: true,
    });
    // server-everything asks for this link first, then, called again, for the one in `args`.
    const prerequisite = {
      mode: 'url',
      url: 'https://modelcontextprotocol.io/',
      message: 'Open this link to satisfy the prerequisite, then retry the request.',
    };

    // A client that takes links gets the error as the upstream sent it, and calls again once done.
    const { client: onSession } = await connectV1(gw.url, alice.mcpToken, { elicitation: 'url' });
    const asked: unknown[] = [];
    onSession.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push('url' in request.params ? request.params.url : undefined);
      return { action: 'accept' };
    });
    const required = await onSession
      .callTool({ name, arguments: args(1) })
      .catch((error: unknown) => error);
    expect(required).toMatchObject({
      code: -32042,
      data: { elicitations: [{ ...prerequisite, elicitationId: expect.any(String) }] },
    });
    const done = await onSession.callTool({ name, arguments: args(1) });
    expect(JSON.stringify(done.content)).toContain('User completed the URL elicitation flow');
    expect(asked).toEqual([args(1).url]);

    // 2026-07-28 has no -32042: a client that takes links is asked in input_required, and the
    // call runs again with the answer (and, as server-everything asks next, for its own link).
    const modern = await connectV2(gw.url, alice.mcpToken, { elicitation: 'url' });
    const modernAsked: unknown[] = [];
    modern.setRequestHandler('elicitation/create', async (request) => {
      modernAsked.push('url' in request.params ? request.params.url : undefined);
      return { action: 'accept' };
    });
    const modernDone = await modern.callTool({ name, arguments: args(4) });
    expect(JSON.stringify(modernDone.content)).toContain('User completed the URL elicitation flow');
    expect(modernAsked).toEqual([prerequisite.url, args(4).url]);

    // Any other client: the approvals list shows the link; approved, the call goes again.
    const { client: plain } = await connectV1(gw.url, alice.mcpToken);
    const waiting = plain.callTool({ name, arguments: args(2) });
    expect(await decide(gw, alice, 'approve')).toBe(
      `${prerequisite.message}\n\n${prerequisite.url}\n\nOpen this address in your browser; approve once you have done what it asks, or deny.`,
    );
    expect(await decide(gw, alice, 'approve')).toContain(args(2).url);
    expect(JSON.stringify((await waiting).content)).toContain(
      'User completed the URL elicitation flow',
    );

    // Declined: nothing is sent again.
    const declining = plain.callTool({ name, arguments: args(3) });
    await decide(gw, alice, 'deny');
    const declined = await declining;
    expect(declined.isError).toBe(true);
    expect(JSON.stringify(declined.content)).toContain(
      'needs a step in the browser first (Open this link to satisfy the prerequisite, then retry the request.), and it was declined, so nothing was done.',
    );

    const rows = await recordsOf(gw, name);
    expect(rows.map((row) => [row.outcome, row.error])).toEqual([
      ['error', 'URL elicitation required'],
      ['ok', null],
      ['ok', null],
      ['ok', null],
      ['denied', 'URL elicitation declined'],
    ]);
  });

  it('refuses to relay links that are not https, or carry credentials, without asking anyone', async () => {
    const gw = await gatewayWithEverything();
    const alice = await gw.user({ admin: true });
    const { client } = await connectV1(gw.url, alice.mcpToken, { elicitation: 'url' });
    let asked = 0;
    client.setRequestHandler(ElicitRequestSchema, async () => {
      asked += 1;
      return { action: 'accept' };
    });
    for (const url of [
      'http://phish.example.com/login',
      'https://user:secret@auth.example.com/',
      'javascript:alert(document.cookie)',
      `https://auth.example.com/${'a'.repeat(2100)}`,
    ]) {
      const refused = await client.callTool({
        name: 'ev.trigger_url_elicitation',
        arguments: { url, message: 'Open this', elicitationId: 'el-x' },
      });
      expect(refused.isError, url).toBe(true);
    }
    expect(asked).toBe(0);
  });

  it('applies role patterns to upstream tools unchanged', async () => {
    const gw = await gatewayWithEverything();
    await gw.gateway.services.policy.createRole({
      id: 'echoer',
      name: 'Echoer',
      patterns: ['ev.echo'],
    });
    const bob = await gw.user({ roleId: 'echoer' });
    const client = await connectV2(gw.url, bob.mcpToken);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['ev.echo']);
    await expect(
      client.callTool({ name: 'ev.get_sum', arguments: { a: 1, b: 2 } }),
    ).rejects.toThrow(/not found/);
  });
});

describe('server-everything over stdio, from the config file', () => {
  it('is started by the gateway and serves list, call and log notifications', async () => {
    const config = join(tmpdir(), `gateway-stdio-${crypto.randomUUID()}.mjs`);
    await writeFile(
      config,
      `export default { upstreams: [{ id: 'local', namespace: 'local', command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(EVERYTHING_BIN)}, 'stdio'] }] };\n`,
    );
    onTestFinished(() => rm(config, { force: true }));
    const gw = await startMcpGateway({ configFile: config });
    const alice = await gw.user({ admin: true });
    const { client } = await connectV1(gw.url, alice.mcpToken);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain('local.echo');

    const echo = await client.callTool({ name: 'local.echo', arguments: { message: 'via stdio' } });
    expect(echo.content).toEqual([{ type: 'text', text: 'Echo: via stdio' }]);

    const lines: unknown[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
      lines.push(notification.params.data);
    });
    await client.setLoggingLevel('debug');
    const toggle = async () => {
      const toggled = await client.callTool({
        name: 'local.toggle_simulated_logging',
        arguments: {},
      });
      expect(toggled.isError).toBeFalsy();
    };
    // server-everything's own words ("Info-level message", "Alert level-message", ...).
    const heard = () => lines.some((line) => /level[ -]message/.test(JSON.stringify(line)));
    // Turned on, it sends one line at once, during the call. But it also says its tool list
    // changed as it starts, and the gateway lists its tools again 200 ms later (live-source.ts): a
    // stdio process's line that comes while a request of the gateway's own is in flight cannot be
    // told to be the call's, and is dropped (`Upstream.#callOf`). On a loaded machine the toggle
    // can land there (it failed so once in a full run), so a toggle that heard nothing is turned
    // off and on again, at most twice.
    await toggle();
    for (let again = 0; again < 2 && !heard(); again += 1) {
      await toggle();
      await toggle();
    }
    expect(heard()).toBe(true);
  });
});
