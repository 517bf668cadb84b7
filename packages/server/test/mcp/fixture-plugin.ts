import { definePlugin, defineTool, type Plugin, requireApproval, ToolError } from '@gateway/sdk';
import { z } from 'zod';

/** What the fixture's destructive tool did, so tests can see that a denial changed nothing. */
export interface FixtureState {
  deleted: string[];
  /** Calls to `demo.files.delete` that reached the handler, including re-runs. */
  deleteRuns: number;
  /** Execution ids of `demo.slow.wait` calls whose abort signal fired, with the reason's name. */
  stopped: { executionId: string; reason: string }[];
}

/** A fresh, empty {@link FixtureState}. */
export function emptyFixtureState(): FixtureState {
  return { deleted: [], deleteRuns: 0, stopped: [] };
}

/**
 * A plugin for the MCP tests, mounted under `demo`: a read-only echo, a destructive delete that
 * asks first, and tools that fail in each way the gateway maps to an error result.
 */
export function createFixturePlugin(state: FixtureState): Plugin {
  return definePlugin({
    id: 'demo',
    name: 'Demo',
    description: 'Fixture tools for the MCP tests.',
    authProviders: [{ id: 'github', type: 'oauth2', provider: 'github', scopes: [] }],
    tools: [
      defineTool({
        path: 'demo.echo.say',
        name: 'Say',
        description: 'Echoes the text back.',
        inputSchema: z.object({ text: z.string().min(1).describe('What to echo') }),
        outputSchema: z.object({ text: z.string(), userId: z.string() }),
        serviceAccountAllowed: true,
        async handler(ctx, { text }) {
          ctx.logger.info('echo', { length: text.length });
          return { text, userId: ctx.userId };
        },
      }),
      defineTool({
        path: 'demo.files.delete',
        name: 'Delete File',
        description: 'Deletes a file after the user approves.',
        inputSchema: z.object({ name: z.string().describe('The file to delete') }),
        outputSchema: z.object({ deleted: z.string(), executionId: z.string() }),
        destructive: true,
        async handler(ctx, { name }, call) {
          state.deleteRuns += 1;
          // No toolPath: the gateway knows which tool asks, and names it in a denial.
          await requireApproval(ctx, {
            message: `Delete ${name}?`,
            args: { name },
          });
          state.deleted.push(name);
          return { deleted: name, executionId: call.executionId };
        },
      }),
      defineTool({
        path: 'demo.fail.tool_error',
        name: 'Tool Error',
        description: 'Fails with a message for the user.',
        inputSchema: z.object({}),
        async handler() {
          throw new ToolError('The upstream service said no.');
        },
      }),
      defineTool({
        path: 'demo.fail.crash',
        name: 'Crash',
        description: 'Fails unexpectedly.',
        inputSchema: z.object({}),
        async handler() {
          throw new Error('internal detail: connection string postgres://admin:hunter2@db');
        },
      }),
      defineTool({
        path: 'demo.fail.bad_output',
        name: 'Bad Output',
        description: 'Returns output its schema rejects.',
        inputSchema: z.object({}),
        outputSchema: z.object({ count: z.number() }),
        async handler() {
          return JSON.parse('{"count":"many"}');
        },
      }),
      defineTool({
        path: 'demo.slow.wait',
        name: 'Wait',
        description: 'Waits until stopped.',
        inputSchema: z.object({}),
        async handler(ctx, _input, call) {
          ctx.logger.info('waiting until stopped');
          await new Promise((resolve) => call.signal.addEventListener('abort', resolve));
          const reason: unknown = call.signal.reason;
          state.stopped.push({
            executionId: call.executionId,
            reason: reason instanceof Error ? reason.message : String(reason),
          });
          return 'stopped';
        },
      }),
      defineTool({
        path: 'demo.auth.whoami',
        name: 'Who Am I',
        description: 'Needs a GitHub credential.',
        inputSchema: z.object({}),
        authProvider: 'github',
        async handler(ctx) {
          return { token: await ctx.auth.getToken('github') };
        },
      }),
    ],
  });
}
