import { definePlugin, defineTool, type Plugin, requireApproval } from '@gateway/sdk';
import { z } from 'zod';

/** What the notes plugin's destructive tool did, so a test can see an approval let it act. */
export interface NotesState {
  notes: string[];
}

/**
 * The plugins of the web app's browser tests: notes (no credentials; a destructive delete that
 * asks first), weather (an API-key tool that reports the end of the key it was vended) and
 * tracker (an OAuth tool on the `linear` provider, which the test points at a local OAuth
 * server).
 */
export function webTestPlugins(state: NotesState): Plugin[] {
  return [
    definePlugin({
      id: 'notes',
      name: 'Notes',
      description: 'Personal notes kept by the gateway.',
      tools: [
        defineTool({
          path: 'notes.notes.list',
          name: 'List Notes',
          description: 'Lists your notes.',
          inputSchema: z.object({}),
          handler: async () => ({ notes: [...state.notes] }),
        }),
        defineTool({
          path: 'notes.notes.delete',
          name: 'Delete Note',
          description: 'Deletes a note after you approve.',
          inputSchema: z.object({ title: z.string().describe('The note to delete') }),
          destructive: true,
          async handler(ctx, { title }) {
            await requireApproval(ctx, {
              toolPath: 'notes.notes.delete',
              message: `Delete the note “${title}”?`,
              args: { title },
            });
            state.notes = state.notes.filter((note) => note !== title);
            return { deleted: title };
          },
        }),
      ],
    }),
    definePlugin({
      id: 'weather',
      name: 'Weather',
      description: 'Forecasts from the weather service (needs an API key).',
      authProviders: [{ id: 'weather', type: 'api_key', provider: 'weather', scopes: [] }],
      tools: [
        defineTool({
          path: 'weather.forecast.get',
          name: 'Get Forecast',
          description: 'Tomorrow’s forecast for a city.',
          inputSchema: z.object({ city: z.string() }),
          authProvider: 'weather',
          async handler(ctx, { city }) {
            const key = await ctx.auth.getToken('weather');
            return { city, forecast: 'Sunny', keyEnding: key.slice(-4) };
          },
        }),
      ],
    }),
    definePlugin({
      id: 'tracker',
      name: 'Tracker',
      description: 'Issues from the team tracker (connect with OAuth).',
      authProviders: [{ id: 'linear', type: 'oauth2', provider: 'linear', scopes: ['read'] }],
      tools: [
        defineTool({
          path: 'tracker.issues.list',
          name: 'List Issues',
          description: 'Lists the issues assigned to you.',
          inputSchema: z.object({}),
          authProvider: 'linear',
          async handler(ctx) {
            await ctx.auth.getToken('linear');
            return { issues: [] };
          },
        }),
      ],
    }),
  ];
}
