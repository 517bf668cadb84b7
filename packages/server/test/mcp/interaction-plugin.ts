import {
  definePlugin,
  defineTool,
  type FormField,
  type Plugin,
  requireApproval,
  ToolError,
} from '@gateway/sdk';
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

/** What the interaction tools did, so tests can count re-runs. */
export interface InteractionState {
  /** Runs of `calls.files.move`'s handler, including re-runs. */
  moveRuns: number;
  /** Moves `calls.files.move` finished. */
  moved: { from: string; to: string; deletedSource: boolean }[];
  /** Runs of `calls.texts.pair`'s handler, including re-runs. */
  pairRuns: number;
}

/** A fresh, empty {@link InteractionState}. */
export function emptyInteractionState(): InteractionState {
  return { moveRuns: 0, moved: [], pairRuns: 0 };
}

/**
 * A plugin for the MCP tests of what a handler can do during a call, mounted under `calls`:
 * report progress, ask for a form with explicit fields, ask two questions, ask the client's model
 * twice, and take its time.
 */
export function createInteractionPlugin(state: InteractionState = emptyInteractionState()): Plugin {
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
        path: 'calls.files.move',
        name: 'Move File',
        description: 'Asks to copy a file, then whether to delete the original; acts at the end.',
        inputSchema: z.object({ from: z.string(), to: z.string() }),
        outputSchema: z.object({ moved: z.boolean(), deletedSource: z.boolean() }),
        destructive: true,
        async handler(ctx, { from, to }) {
          state.moveRuns += 1;
          await requireApproval(ctx, {
            toolPath: 'calls.files.move',
            message: `Copy ${from} to ${to}?`,
          });
          const remove = await ctx.elicit({
            toolPath: 'calls.files.move',
            message: `Then delete ${from}?`,
          });
          state.moved.push({ from, to, deletedSource: remove.approved });
          return { moved: true, deletedSource: remove.approved };
        },
      }),
      defineTool({
        path: 'calls.texts.pair',
        name: 'Pair',
        description: "Asks the client's model for a colour, then for a fruit of that colour.",
        inputSchema: z.object({ mood: z.string() }),
        outputSchema: z.object({ colour: z.string(), fruit: z.string(), model: z.string() }),
        async handler(_ctx, { mood }, call) {
          state.pairRuns += 1;
          const text = async (prompt: string) => {
            const reply = await call.sample({
              messages: [{ role: 'user', content: { type: 'text', text: prompt } }],
              maxTokens: 20,
              systemPrompt: 'Answer with one word.',
            });
            if (reply.content.type !== 'text')
              throw new ToolError('The model did not answer in text.');
            return { text: reply.content.text, model: reply.model };
          };
          const colour = await text(`Name a ${mood} colour.`);
          const fruit = await text(`Name a ${colour.text} fruit.`);
          return { colour: colour.text, fruit: fruit.text, model: fruit.model };
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
