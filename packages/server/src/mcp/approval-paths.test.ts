import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { definePlugin, defineTool, type Plugin } from '@gateway/sdk';
import { specTypeSchemas, withInputRequired } from '@modelcontextprotocol/client';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { z } from 'zod';
import { createPostgresTestDatabase, postgresTestUrl } from '#test/db/test-database.js';
import { emptyFixtureState, type FixtureState } from '#test/mcp/fixture-plugin.js';
import { createInteractionPlugin, emptyInteractionState } from '#test/mcp/interaction-plugin.js';
import {
  connectV1,
  connectV2,
  type McpTestGateway,
  type McpTestUser,
  startMcpGateway,
  waitForApproval,
} from '#test/mcp/mcp-test-kit.js';
import { ABANDONED_ERROR } from '../executions/index.js';

const DELETE = { name: 'demo.files.delete', arguments: { name: 'report.pdf' } };
const pgUrl = postgresTestUrl();

/** Two gateway instances sharing one SQLite file (or `databaseUrl`), and one fixture state. */
async function twoInstances(databaseUrl?: string, mcp = {}, plugins: Plugin[] = []) {
  let url = databaseUrl;
  if (url === undefined) {
    const dir = await mkdtemp(join(tmpdir(), 'gw-mcp-'));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    url = join(dir, 'gateway.db');
  }
  const state: FixtureState = emptyFixtureState();
  const a = await startMcpGateway({ databaseUrl: url, state, mcp, plugins });
  const b = await startMcpGateway({ databaseUrl: url, state, mcp, plugins });
  return { a, b, state };
}

async function executionOf(gw: McpTestGateway, user: McpTestUser) {
  await gw.gateway.services.executions.flush();
  const response = await gw.gateway.request('GET', `/api/executions?userId=${user.id}`, {
    as: user,
  });
  const { executions } = (await response.json()) as {
    executions: {
      id: string;
      outcome: string | null;
      approval: string | null;
      approvedBy: string | null;
      error: string | null;
    }[];
  };
  return executions[0];
}

/** Path 1 with two instances: ask on one, answer on the other, then try to replay. */
async function answerOnceAcrossInstances(url?: string) {
  const { a, b, state } = await twoInstances(url);
  const alice = await a.user({ admin: true });
  const bob = await a.user({ admin: true });
  const onA = await connectV2(a.url, alice.mcpToken, { elicitation: true });
  const onB = await connectV2(b.url, alice.mcpToken, { elicitation: true });
  const bobOnB = await connectV2(b.url, bob.mcpToken, { elicitation: true });
  const schema = withInputRequired(specTypeSchemas.CallToolResult);
  const manual = { allowInputRequired: true };

  const first = await onA.request({ method: 'tools/call', params: DELETE }, schema, manual);
  expect(first).toMatchObject({ resultType: 'input_required' });
  const requestState = 'requestState' in first ? String(first.requestState) : '';
  expect(state.deleted).toEqual([]);

  const answer = { gateway_elicit: { action: 'accept', content: { approve: true } } };
  const retry = (client: typeof onA, params: Record<string, unknown>) =>
    client.request({ method: 'tools/call', params }, schema, manual);
  const invalid = /Invalid or expired requestState/;

  // Someone else, other arguments, or a forged state: refused before the handler runs.
  await expect(retry(bobOnB, { ...DELETE, inputResponses: answer, requestState })).rejects.toThrow(
    invalid,
  );
  await expect(
    retry(onB, {
      name: DELETE.name,
      arguments: { name: 'other.pdf' },
      inputResponses: answer,
      requestState,
    }),
  ).rejects.toThrow(invalid);
  await expect(
    retry(onB, {
      ...DELETE,
      inputResponses: answer,
      // A character in the middle changed: the last one of base64url may carry only padding
      // bits, so changing the end can leave the same bytes (and then the same, valid state).
      requestState: `${requestState.slice(0, 8)}${requestState[8] === 'A' ? 'B' : 'A'}${requestState.slice(9)}`,
    }),
  ).rejects.toThrow(invalid);
  // Another tool with the same arguments: demo.fail.tool_error would take them and run.
  await expect(
    retry(onB, {
      name: 'demo.fail.tool_error',
      arguments: DELETE.arguments,
      inputResponses: answer,
      requestState,
    }),
  ).rejects.toThrow(invalid);
  expect(state.deleteRuns).toBe(1);

  const done = await retry(onB, { ...DELETE, inputResponses: answer, requestState });
  expect(done).toMatchObject({ structuredContent: { deleted: 'report.pdf' } });
  expect(state.deleted).toEqual(['report.pdf']);

  // The same answer again, on either instance: already used.
  await expect(retry(onA, { ...DELETE, inputResponses: answer, requestState })).rejects.toThrow(
    invalid,
  );
  await expect(retry(onB, { ...DELETE, inputResponses: answer, requestState })).rejects.toThrow(
    invalid,
  );
  expect(state.deleted).toEqual(['report.pdf']);
  expect(await executionOf(b, alice)).toMatchObject({ outcome: 'ok', approval: 'approved' });
}

describe('approval path 1: a 2026-07-28 client answers input_required', () => {
  it('runs the handler again with the answer when the client approves', async () => {
    const gw = await startMcpGateway();
    const alice = await gw.user({ admin: true });
    const client = await connectV2(gw.url, alice.mcpToken, { elicitation: true });
    const asked: string[] = [];
    client.setRequestHandler('elicitation/create', async (request) => {
      asked.push(request.params.message);
      return { action: 'accept', content: { approve: true } };
    });
    const result = await client.callTool(DELETE);
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ deleted: 'report.pdf' });
    expect(asked).toEqual([
      'Delete report.pdf?\n\nTool: demo.files.delete\nArguments: {"name":"report.pdf"}',
    ]);
    expect(gw.state).toMatchObject({ deleted: ['report.pdf'], deleteRuns: 2 });
    const execution = await executionOf(gw, alice);
    expect(execution).toMatchObject({ outcome: 'ok', approval: 'approved', approvedBy: alice.id });
    expect(result.structuredContent).toMatchObject({ executionId: execution?.id });
  });

  it.each([
    ['declines', { action: 'decline' as const }, 'declined'],
    ['cancels', { action: 'cancel' as const }, 'cancelled'],
  ])('changes nothing when the user %s', async (_case, answer, decision) => {
    const gw = await startMcpGateway();
    const alice = await gw.user({ admin: true });
    const client = await connectV2(gw.url, alice.mcpToken, { elicitation: true });
    client.setRequestHandler('elicitation/create', async () => answer);
    const result = await client.callTool(DELETE);
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain(
      'did not approve demo.files.delete; nothing was changed',
    );
    expect(gw.state.deleted).toEqual([]);
    expect(await executionOf(gw, alice)).toMatchObject({ outcome: 'denied', approval: decision });
  });

  // Issue 18: an accept without approve: true was a denial the client heard nothing about.
  it('takes an accept without the field as yes, and says what an unticked accept did', async () => {
    const gw = await startMcpGateway();
    const alice = await gw.user({ admin: true });
    const client = await connectV2(gw.url, alice.mcpToken, { elicitation: true });
    let answer: { action: 'accept'; content?: { approve: boolean } } = { action: 'accept' };
    client.setRequestHandler('elicitation/create', async () => answer);
    const approved = await client.callTool(DELETE);
    expect(approved.isError).toBeFalsy();
    expect(gw.state.deleted).toEqual(['report.pdf']);

    answer = { action: 'accept', content: { approve: false } };
    const unticked = await client.callTool({ ...DELETE, arguments: { name: 'b.pdf' } });
    expect(unticked.isError).toBe(true);
    expect(unticked.content).toEqual([
      {
        type: 'text',
        text: 'demo.files.delete did not go ahead: the approval was accepted with "Approve" unticked, which counts as no, so nothing was changed. To go ahead, call the tool again and accept with "Approve" ticked; to stop, decline.',
      },
    ]);
    expect(gw.state.deleted).toEqual(['report.pdf']);
    expect(await executionOf(gw, alice)).toMatchObject({ outcome: 'denied', approval: 'declined' });
  });

  it('accepts an answer once, on any instance, only for the same user, tool and arguments', () =>
    answerOnceAcrossInstances());

  it.skipIf(!pgUrl)('accepts an answer once across instances on PostgreSQL too', async () => {
    const scoped = await createPostgresTestDatabase(pgUrl ?? '');
    onTestFinished(scoped.drop);
    await answerOnceAcrossInstances(scoped.url);
  });

  it('stops a call answered after its time, once, and closes its record as timed out', async () => {
    const gw = await startMcpGateway({ mcp: { approvalTimeoutMs: 1000 } });
    const alice = await gw.user({ admin: true });
    const client = await connectV2(gw.url, alice.mcpToken, { elicitation: true });
    const schema = withInputRequired(specTypeSchemas.CallToolResult);
    const manual = { allowInputRequired: true };
    const first = await client.request({ method: 'tools/call', params: DELETE }, schema, manual);
    const requestState = 'requestState' in first ? String(first.requestState) : '';
    // While the question is out, the record shows the call waiting for it.
    expect(await executionOf(gw, alice)).toMatchObject({ outcome: null, approval: 'pending' });

    // Past its answer time on the clock the rounds read (Date), without waiting 1 s for it.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 1200 });
    onTestFinished(() => {
      vi.useRealTimers();
    });
    const params = {
      ...DELETE,
      requestState,
      inputResponses: { gateway_elicit: { action: 'accept', content: { approve: true } } },
    };
    const late = await client.request({ method: 'tools/call', params }, schema, manual);
    expect(late).toMatchObject({
      content: [
        {
          type: 'text',
          text: 'demo.files.delete asked a question that was not answered within 1 s, so the call was stopped and nothing more was done. Call the tool again to start over.',
        },
      ],
      isError: true,
    });
    expect(gw.state).toMatchObject({ deleted: [], deleteRuns: 1 });
    expect(await executionOf(gw, alice)).toMatchObject({
      outcome: 'timeout',
      approval: 'expired',
    });
    // The late answer was used up too.
    await expect(client.request({ method: 'tools/call', params }, schema, manual)).rejects.toThrow(
      /Invalid or expired requestState/,
    );
    expect(gw.state.deleteRuns).toBe(1);
  });

  it('closes out a call whose client never came back', async () => {
    const gw = await startMcpGateway({
      mcp: { approvalTimeoutMs: 300, toolTimeoutMs: 200, sweepEveryMs: 20 },
    });
    const alice = await gw.user({ admin: true });
    const client = await connectV2(gw.url, alice.mcpToken, { elicitation: true });
    const schema = withInputRequired(specTypeSchemas.CallToolResult);
    const first = await client.request({ method: 'tools/call', params: DELETE }, schema, {
      allowInputRequired: true,
    });
    expect(first).toMatchObject({ resultType: 'input_required' });
    expect(await executionOf(gw, alice)).toMatchObject({ outcome: null, approval: 'pending' });
    // Past the call's last chance (1 s after its question) on the clock the sweeps read (Date),
    // without waiting for it; the sweeps themselves still run every 20 ms of real time.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 2000 });
    onTestFinished(() => {
      vi.useRealTimers();
    });
    let execution = await executionOf(gw, alice);
    for (let i = 0; i < 250 && execution?.outcome === null; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      execution = await executionOf(gw, alice);
    }
    expect(execution).toMatchObject({
      outcome: 'timeout',
      approval: 'expired',
      error: ABANDONED_ERROR,
    });
    expect(gw.state.deleted).toEqual([]);
  });

  it('uses a state once even when the retry brings no answer, on any instance', async () => {
    const interactions = emptyInteractionState();
    const { a, b } = await twoInstances(undefined, {}, [createInteractionPlugin(interactions)]);
    const alice = await a.user({ admin: true });
    const onA = await connectV2(a.url, alice.mcpToken, { elicitation: true });
    const onB = await connectV2(b.url, alice.mcpToken, { elicitation: true });
    const schema = withInputRequired(specTypeSchemas.CallToolResult);
    const manual = { allowInputRequired: true };
    const MOVE = { name: 'calls.files.move', arguments: { from: 'a.txt', to: 'b.txt' } };
    const call = (client: typeof onA, params: Record<string, unknown>) =>
      client.request({ method: 'tools/call', params }, schema, manual);
    const stateOf = (result: unknown) =>
      typeof result === 'object' && result !== null && 'requestState' in result
        ? String(result.requestState)
        : '';

    const first = await call(onA, MOVE);
    const second = await call(onB, {
      ...MOVE,
      requestState: stateOf(first),
      inputResponses: { gateway_elicit: { action: 'accept', content: { approve: true } } },
    });
    expect(second).toMatchObject({ resultType: 'input_required' });
    expect(interactions.moveRuns).toBe(2);

    // Round 2's state without an answer: the second question counts as cancelled, once.
    const replayed = await call(onA, { ...MOVE, requestState: stateOf(second) });
    expect(replayed).toMatchObject({ structuredContent: { moved: true, deletedSource: false } });
    expect(interactions.moveRuns).toBe(3);
    // Used up, with or without an answer, here and on the other instance: round 1's approval
    // cannot run the handler again.
    await expect(call(onB, { ...MOVE, requestState: stateOf(second) })).rejects.toThrow(
      /Invalid or expired requestState/,
    );
    await expect(
      call(onA, {
        ...MOVE,
        requestState: stateOf(second),
        inputResponses: { gateway_elicit: { action: 'accept', content: { approve: true } } },
      }),
    ).rejects.toThrow(/Invalid or expired requestState/);
    expect(interactions.moveRuns).toBe(3);
    expect(interactions.moved).toEqual([{ from: 'a.txt', to: 'b.txt', deletedSource: false }]);
  });
});

describe('approval path 2: a 2025 client with elicitation is asked on its session', () => {
  it.each([
    [
      'approves',
      { action: 'accept' as const, content: { approve: true } },
      ['report.pdf'],
      'approved',
    ],
    ['accepts without the field', { action: 'accept' as const }, ['report.pdf'], 'approved'],
    ['declines', { action: 'decline' as const }, [], 'declined'],
    ['cancels', { action: 'cancel' as const }, [], 'cancelled'],
    [
      'accepts with Approve unticked',
      { action: 'accept' as const, content: { approve: false } },
      [],
      'declined',
    ],
  ])(
    'asks with elicitation/create and acts only when the user %s',
    async (_case, answer, deleted, decision) => {
      const gw = await startMcpGateway();
      const alice = await gw.user({ admin: true });
      const { client } = await connectV1(gw.url, alice.mcpToken, { elicitation: true });
      const asked: string[] = [];
      client.setRequestHandler(ElicitRequestSchema, async (request) => {
        asked.push(request.params.message);
        return answer;
      });
      const result = await client.callTool(DELETE);
      expect(asked).toHaveLength(1);
      expect(gw.state.deleted).toEqual(deleted);
      // Asked inline: the handler ran once.
      expect(gw.state.deleteRuns).toBe(1);
      expect(Boolean(result.isError)).toBe(deleted.length === 0);
      expect(await executionOf(gw, alice)).toMatchObject({
        approval: decision,
        approvedBy: alice.id,
      });
    },
  );

  it('changes nothing when the user does not answer in time', async () => {
    const gw = await startMcpGateway({ mcp: { approvalTimeoutMs: 300 } });
    const alice = await gw.user({ admin: true });
    const { client } = await connectV1(gw.url, alice.mcpToken, { elicitation: true });
    let asked = 0;
    client.setRequestHandler(ElicitRequestSchema, () => {
      asked += 1;
      // The user never answers.
      return new Promise(() => {});
    });
    const result = await client.callTool(DELETE);
    expect(asked).toBe(1);
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain('nothing was changed');
    expect(gw.state).toMatchObject({ deleted: [], deleteRuns: 1 });
    expect(await executionOf(gw, alice)).toMatchObject({
      outcome: 'denied',
      approval: 'expired',
      approvedBy: alice.id,
    });
  });
});

describe('approval path 3: clients without elicitation wait for a decision through the API', () => {
  it('resumes the call on one instance when the decision reaches the other (SQLite)', async () => {
    const { a, b, state } = await twoInstances();
    const alice = await a.user();
    await a.gateway.services.policy.assignRole(alice.id, 'admin');
    const { client } = await connectV1(a.url, alice.mcpToken);
    const progress: string[] = [];
    const call = client.callTool(DELETE, undefined, {
      onprogress: (update) => progress.push(update.message ?? ''),
    });

    const pending = await waitForApproval(b, alice);
    // The record shows the call alive and waiting.
    expect(await executionOf(a, alice)).toMatchObject({ outcome: null, approval: 'pending' });
    expect(pending).toMatchObject({
      toolPath: 'demo.files.delete',
      message: 'Delete report.pdf?',
      args: { name: 'report.pdf' },
      status: 'pending',
    });
    expect(state.deleted).toEqual([]);
    const decided = await b.gateway.request('POST', `/api/approvals/${pending.id}`, {
      as: alice,
      body: { decision: 'approve' },
    });
    expect(decided.status).toBe(200);

    const result = await call;
    expect(result.isError).toBeFalsy();
    expect(state.deleted).toEqual(['report.pdf']);
    expect(await executionOf(a, alice)).toMatchObject({
      outcome: 'ok',
      approval: 'approved',
      approvedBy: alice.id,
    });
    // While it waited, the client heard where to decide.
    expect(progress[0]).toMatch(
      /^Waiting for your approval: open http:\/\/127\.0\.0\.1:\d+\/ or run `gateway approvals`$/,
    );
  });

  it('changes nothing when denied, and a v2 client without elicitation waits the same way', async () => {
    const { a, b, state } = await twoInstances();
    const alice = await a.user({ admin: true });
    const client = await connectV2(a.url, alice.mcpToken);
    const call = client.callTool(DELETE);
    const pending = await waitForApproval(b, alice);
    await b.gateway.request('POST', `/api/approvals/${pending.id}`, {
      as: alice,
      body: { decision: 'deny' },
    });
    const result = await call;
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain('nothing was changed');
    expect(state.deleted).toEqual([]);
    expect(await executionOf(a, alice)).toMatchObject({ outcome: 'denied', approval: 'declined' });
  });

  it('expires the approval after the configured time', async () => {
    const gw = await startMcpGateway({ mcp: { approvalTimeoutMs: 300 } });
    const alice = await gw.user({ admin: true });
    const { client } = await connectV1(gw.url, alice.mcpToken);
    const result = await client.callTool(DELETE);
    expect(result.isError).toBe(true);
    expect(gw.state.deleted).toEqual([]);
    const response = await gw.gateway.request(
      'GET',
      `/api/approvals?userId=${alice.id}&status=all`,
      {
        as: alice,
      },
    );
    const { approvals } = (await response.json()) as {
      approvals: { id: string; status: string }[];
    };
    expect(approvals[0]?.status).toBe('expired');
    expect(await executionOf(gw, alice)).toMatchObject({ outcome: 'denied', approval: 'expired' });
    const late = await gw.gateway.request('POST', `/api/approvals/${approvals[0]?.id}`, {
      as: alice,
      body: { decision: 'approve' },
    });
    expect(late.status).toBe(409);
  });

  it.skipIf(!pgUrl)('wakes the waiting instance through LISTEN/NOTIFY on PostgreSQL', async () => {
    const { url, drop } = await createPostgresTestDatabase(pgUrl ?? '');
    onTestFinished(drop);
    // On PostgreSQL waiters poll only every 5 s: a wake-up within 2 s is the notification's.
    const { a, b, state } = await twoInstances(url);
    const alice = await a.user({ admin: true });
    const { client } = await connectV1(a.url, alice.mcpToken);
    const call = client.callTool(DELETE);
    const pending = await waitForApproval(b, alice);
    const started = Date.now();
    await b.gateway.request('POST', `/api/approvals/${pending.id}`, {
      as: alice,
      body: { decision: 'approve' },
    });
    const result = await call;
    expect(result.isError).toBeFalsy();
    expect(Date.now() - started).toBeLessThan(2000);
    expect(state.deleted).toEqual(['report.pdf']);
  });
});

describe('a call that keeps asking', () => {
  it('is stopped after ten questions on a session, however quickly the client answers', async () => {
    const asked = { count: 0 };
    const nagging = definePlugin({
      id: 'nag',
      name: 'Nag',
      description: 'Asks without end.',
      tools: [
        defineTool({
          path: 'nag.ask.forever',
          name: 'Ask Forever',
          description: 'Asks one question after another.',
          inputSchema: z.object({}),
          async handler(ctx) {
            for (;;) {
              asked.count += 1;
              await ctx.elicit({
                toolPath: 'nag.ask.forever',
                message: `Question ${asked.count}?`,
              });
            }
          },
        }),
      ],
    });
    const gw = await startMcpGateway({ plugins: [nagging] });
    const alice = await gw.user({ admin: true });
    const { client } = await connectV1(gw.url, alice.mcpToken, { elicitation: true });
    client.setRequestHandler(ElicitRequestSchema, async () => ({
      action: 'accept',
      content: { approve: true },
    }));
    const result = await client.callTool({ name: 'nag.ask.forever', arguments: {} });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain('kept asking questions (more than 10');
    expect(asked.count).toBe(11);
  });
});
