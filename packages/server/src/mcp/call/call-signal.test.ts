import { definePlugin, defineTool } from '@gateway/sdk';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { gate, holdPlugin } from '#test/mcp/hold-plugin.js';
import { ManualCallTimer } from '#test/mcp/manual-call-timer.js';
import { connectV1, connectV2, startMcpGateway } from '#test/mcp/mcp-test-kit.js';
import { rememberSecret } from '#test/support/known-secrets.js';
import type { SourceCall } from '../../tool-sources/index.js';

/**
 * A call's signal is made only when something reads it (running-call.ts): a handler that never
 * reads it is still stopped at its time limit, and one that reads it late finds it aborted.
 */
type Seen = { aborted: boolean; reason: string };

/** `deaf.calls.wait`: held until let go without looking at its signal, then looks. */
function deafPlugin(seen: Seen[]) {
  return holdPlugin({
    id: 'deaf',
    endsWhenStopped: false,
    onRelease(call) {
      const reason: unknown = call.signal.reason;
      seen.push({
        aborted: call.signal.aborted,
        reason: reason instanceof Error ? reason.message : String(reason),
      });
      return 'done';
    },
  });
}

/** `late.keep.signal`: answers at once; reads its signal once `answered` lets it. */
function lateReaderPlugin(seen: Seen[], answered: Promise<void>) {
  return definePlugin({
    id: 'late',
    name: 'Late',
    description: 'A tool that reads its signal after its call is over.',
    tools: [
      defineTool({
        path: 'late.keep.signal',
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

describe("a call's signal", () => {
  it('stops a handler that never reads its signal at the time limit, and it reads it aborted', async () => {
    const seen: Seen[] = [];
    const deaf = deafPlugin(seen);
    // The real timer: attacks.test.ts runs the limit on the test's own.
    const gw = await startMcpGateway({ plugins: [deaf.plugin], mcp: { toolTimeoutMs: 150 } });
    const alice = await gw.user({ admin: true });
    const v2 = await connectV2(gw.url, alice.mcpToken);
    const result = await v2.callTool({ name: deaf.path, arguments: {} });
    deaf.release();
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain('did not finish within 0.2 s');
    // Read after the time limit stopped it: aborted, with the time limit as its reason.
    await vi.waitFor(() => expect(seen).toEqual([{ aborted: true, reason: 'timeout' }]));
    await gw.gateway.services.executions.flush();
    const row = await gw.gateway.services.database.db
      .selectFrom('executions')
      .selectAll()
      .where('tool_path', '=', deaf.path)
      .executeTakeFirstOrThrow();
    expect(row.outcome).toBe('timeout');
  });

  it('is aborted for a handler that reads it after its call was answered', async () => {
    const seen: Seen[] = [];
    const answered = gate();
    const gw = await startMcpGateway({ plugins: [lateReaderPlugin(seen, answered.released)] });
    const alice = await gw.user({ admin: true });
    const { client } = await connectV1(gw.url, alice.mcpToken);
    const result = await client.callTool({ name: 'late.keep.signal', arguments: {} });
    answered.release();
    expect(result.isError).not.toBe(true);
    await vi.waitFor(() => expect(seen).toEqual([{ aborted: true, reason: 'after the answer' }]));
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

  it('tells the next stop listener when one throws, logging only what kind of error (issue 37)', async () => {
    const heard: string[] = [];
    const secret = `sk-stop-${crypto.randomUUID()}`;
    rememberSecret(secret);
    const told = gate();
    const throwing = definePlugin({
      id: 'throwing',
      name: 'Throwing',
      description: 'A tool whose first stop listener throws.',
      tools: [
        defineTool({
          path: 'throwing.wait.long',
          name: 'Wait Long',
          description: 'Waits for its time limit.',
          inputSchema: z.object({}),
          async handler(_ctx, _input, call) {
            const source = call as unknown as SourceCall;
            source.onStop(() => {
              throw new TypeError(`listener broke holding ${secret}`);
            });
            source.onStop((reason) => {
              heard.push(String(reason instanceof Error ? reason.message : reason));
              told.release();
            });
            await told.released;
            return 'late';
          },
        }),
      ],
    });
    const timer = new ManualCallTimer();
    const gw = await startMcpGateway({ plugins: [throwing], internals: { callTimer: timer } });
    const alice = await gw.user({ admin: true });
    const v2 = await connectV2(gw.url, alice.mcpToken);
    const result = v2.callTool({ name: 'throwing.wait.long', arguments: {} });
    await expect.poll(() => timer.armed).toHaveLength(1);
    // What the time limit's timer runs: the throw stays inside the call.
    expect(() => timer.expireAll()).not.toThrow();
    expect((await result).isError).toBe(true);
    expect(heard).toEqual(['timeout']);
    const logs = gw.gateway.logs();
    expect(logs).toContain('call stop listener failed');
    expect(logs).toContain('TypeError');
    expect(logs).not.toContain('listener broke');
  });
});
