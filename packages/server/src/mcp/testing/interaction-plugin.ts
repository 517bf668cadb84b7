import { definePlugin, defineTool, type FormField, type Plugin } from '@gateway/sdk';
import { z } from 'zod';

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The shipping form of `calls.orders.ship`: a titled choice, a multi-select and free text. */
export const SHIPPING_FIELDS: Record<string, FormField> = {
  speed: {
    type: 'string',
    title: 'Speed',
    oneOf: [
      { const: 'std', title: 'Standard' },
      { const: 'exp', title: 'Express' },
    ],
    default: 'std',
  },
  extras: {
    type: 'array',
    title: 'Extras',
    items: {
      anyOf: [
        { const: 'gift', title: 'Gift wrap' },
        { const: 'insured', title: 'Insurance' },
      ],
    },
    default: [],
  },
  note: { type: 'string', title: 'Note', maxLength: 20 },
};

/**
 * A plugin for the MCP tests of what a handler can do during a call, mounted under `calls`:
 * report progress, ask for a form with explicit fields, and take its time.
 */
export function createInteractionPlugin(): Plugin {
  return definePlugin({
    id: 'calls',
    name: 'Calls',
    description: 'Fixture tools that talk to the user while they run.',
    tools: [
      defineTool({
        path: 'calls.files.copy',
        name: 'Copy Files',
        description: 'Copies files, reporting progress (one report goes backwards).',
        inputSchema: z.object({ files: z.array(z.string()) }),
        outputSchema: z.object({ copied: z.number() }),
        async handler(_ctx, { files }, call) {
          call.reportProgress(0, files.length, 'Starting');
          for (const [index, file] of files.entries()) {
            await delay(5);
            call.reportProgress(index + 1, files.length, `Copied ${file}`);
          }
          // Progress must increase: the gateway drops this one.
          call.reportProgress(0, files.length, 'Back to the start');
          return { copied: files.length };
        },
      }),
      defineTool({
        path: 'calls.orders.ship',
        name: 'Ship Order',
        description: 'Asks how to ship, then returns the answer it got.',
        inputSchema: z.object({}),
        outputSchema: z.object({
          approved: z.boolean(),
          data: z.record(z.string(), z.unknown()).nullable(),
        }),
        async handler(ctx) {
          const answer = await ctx.elicit({
            toolPath: 'calls.orders.ship',
            message: 'How should the order ship?',
            type: 'form',
            fields: SHIPPING_FIELDS,
            required: ['speed'],
          });
          return { approved: answer.approved, data: answer.data ?? null };
        },
      }),
      defineTool({
        path: 'calls.orders.malformed',
        name: 'Malformed Form',
        description: 'Asks with a malformed request: form fields on an approval.',
        inputSchema: z.object({}),
        async handler(ctx) {
          await ctx.elicit({
            toolPath: 'calls.orders.malformed',
            message: 'Sure?',
            fields: { sure: { type: 'boolean' } },
          });
          return 'asked';
        },
      }),
      defineTool({
        path: 'calls.slow.nap',
        name: 'Nap',
        description: 'Returns after `ms` milliseconds, reporting progress halfway.',
        inputSchema: z.object({ ms: z.number().int().min(0).max(5000) }),
        async handler(_ctx, { ms }, call) {
          await delay(ms / 2);
          call.reportProgress(1, 2, 'Halfway');
          await delay(ms / 2);
          return 'rested';
        },
      }),
    ],
  });
}
