import { definePlugin, defineTool } from '@gateway/sdk';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { connectV1, connectV2, startMcpGateway } from '#test/mcp/mcp-test-kit.js';
import type { SourceCall } from '../../tool-sources/index.js';

/**
 * A call's signal is made only when something reads it (running-call.ts): a handler that never
 * reads it is still stopped at its time limit, and one that reads it late finds it aborted.
 */
function deafPlugin(seen: { aborted: boolean; reason: string }[], answered: Promise<void>) {
  return definePlugin({
    id: 'deaf',
    name: 'Deaf',
    description: 'Tools that do not listen for their stop.',
    tools: [
      defineTool({
        path: 'deaf.wait.long',
        name: 'Wait Long',
        description: 'Waits for its call to be answered without looking at its signal, then looks.',
        inputSchema: z.object({}),
        async handler(_ctx, _input, call) {
          await answered;
          const reason: unknown = call.signal.reason;
          seen.push({
            aborted: call.signal.aborted,
            reason: reason instanceof Error ? reason.message : String(reason),
          });
          return 'done';
        },
      }),
      defineTool({
        path: 'deaf.keep.signal',
        name: 'Keep Signal',
        description: 'Answers at once; reads its signal once the call is over.',
        inputSchema: z.object({}),
        async handler(_ctx, _input, call) {
          void answered.then(() => {
            seen.push({ aborted: call.signal.aborted, reason: 'after the answer' });
          });
          return 'answered';
        },
      }),
    ],
  });
}

/** A promise the test resolves once the client has the call's answer. */
function whenAnswered() {
  let resolve = () => {};
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

describe("a call's signal", () => {
  it('stops a handler that never reads its signal at the time limit, and it reads it aborted', async () => {
    const seen: { aborted: boolean; reason: string }[] = [];
    const answered = whenAnswered();
    const gw = await startMcpGateway({
      plugins: [deafPlugin(seen, answered.promise)],
      mcp: { toolTimeoutMs: 150 },
    });
    const alice = await gw.user({ admin: true });
    const v2 = await connectV2(gw.url, alice.mcpToken);
    const result = await v2.callTool({ name: 'deaf.wait.long', arguments: {} });
    answered.resolve();
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain('did not finish within 0.2 s');
    for (let i = 0; i < 100 && seen.length === 0; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    // Read after the time limit stopped it: aborted, with the time limit as its reason.
    expect(seen).toEqual([{ aborted: true, reason: 'timeout' }]);
    await gw.gateway.services.executions.flush();
    const row = await gw.gateway.services.database.db
      .selectFrom('executions')
      .selectAll()
      .where('tool_path', '=', 'deaf.wait.long')
      .executeTakeFirstOrThrow();
    expect(row.outcome).toBe('timeout');
  });

  it('is aborted for a handler that reads it after its call was answered', async () => {
    const seen: { aborted: boolean; reason: string }[] = [];
    const answered = whenAnswered();
    const gw = await startMcpGateway({ plugins: [deafPlugin(seen, answered.promise)] });
    const alice = await gw.user({ admin: true });
    const { client } = await connectV1(gw.url, alice.mcpToken);
    const result = await client.callTool({ name: 'deaf.keep.signal', arguments: {} });
    answered.resolve();
    expect(result.isError).not.toBe(true);
    for (let i = 0; i < 100 && seen.length === 0; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(seen).toEqual([{ aborted: true, reason: 'after the answer' }]);
  });

  it('tells its stop listeners of a stop, once, and not of the end of a call (onStop, issue 37)', async () => {
    const heard: string[] = [];
    let stopped: () => void = () => {};
    const told = new Promise<void>((resolve) => {
      stopped = resolve;
    });
    // What an upstream source does (upstream.ts): the same call object a plugin handler gets.
    const listening = definePlugin({
      id: 'listening',
      name: 'Listening',
      description: 'Tools that listen for their stop.',
      tools: [
        defineTool({
          path: 'listening.wait.long',
          name: 'Wait Long',
          description: 'Waits past its time limit.',
          inputSchema: z.object({}),
          async handler(_ctx, _input, call) {
            (call as unknown as SourceCall).onStop((reason) => {
              heard.push(`long: ${reason instanceof Error ? reason.message : String(reason)}`);
              stopped();
            });
            await told;
            // Stopped already: told at once.
            (call as unknown as SourceCall).onStop(() => heard.push('long: late listener'));
            return 'late';
          },
        }),
        defineTool({
          path: 'listening.answer.now',
          name: 'Answer Now',
          description: 'Answers at once, one listener still registered.',
          inputSchema: z.object({}),
          async handler(_ctx, _input, call) {
            (call as unknown as SourceCall).onStop(() => heard.push('now: stopped'));
            const off = (call as unknown as SourceCall).onStop(() => heard.push('now: removed'));
            off();
            return 'answered';
          },
        }),
      ],
    });
    const gw = await startMcpGateway({ plugins: [listening], mcp: { toolTimeoutMs: 150 } });
    const alice = await gw.user({ admin: true });
    const v2 = await connectV2(gw.url, alice.mcpToken);
    expect((await v2.callTool({ name: 'listening.answer.now', arguments: {} })).isError).not.toBe(
      true,
    );
    const result = await v2.callTool({ name: 'listening.wait.long', arguments: {} });
    expect(result.isError).toBe(true);
    await told;
    await vi.waitFor(() => expect(heard).toHaveLength(2));
    expect(heard).toEqual(['long: timeout', 'long: late listener']);
  });
});
