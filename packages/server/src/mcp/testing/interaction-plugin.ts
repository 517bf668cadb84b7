import { definePlugin, defineTool, type Plugin } from '@gateway/sdk';
import { z } from 'zod';

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A plugin for the MCP tests of what a handler can do during a call, mounted under `calls`:
 * report progress.
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
    ],
  });
}
