import { definePlugin, defineTool, type Plugin, requireApproval } from '@gateway/sdk';
import { z } from 'zod';

/** What the notes plugin's destructive tool did, so a test can see an approval let it act. */
export interface NotesState {
  notes: string[];
}

/**
 * The plugins of the web app's browser tests: notes (no credentials; a destructive delete that
 * asks first), weather (an API-key tool that reports the end of the key it was vended), tracker
 * (an OAuth tool on the `linear` provider, which the test points at a local OAuth server), maps
 * (an API-key tool the test world serves with the server key `MAPS_API_KEY`) and crm (an API-key
 * tool only the team-connection tests connect, so no other test sees its state change).
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
    definePlugin({
      id: 'maps',
      name: 'Maps',
      description: 'Directions from the maps service (the server holds a key).',
      authProviders: [{ id: 'maps', type: 'api_key', provider: 'maps', scopes: [] }],
      tools: [
        defineTool({
          path: 'maps.routes.get',
          name: 'Get Route',
          description: 'A route between two places.',
          inputSchema: z.object({ from: z.string(), to: z.string() }),
          authProvider: 'maps',
          async handler(ctx, { from, to }) {
            await ctx.auth.getToken('maps');
            return { from, to, minutes: 12 };
          },
        }),
      ],
    }),
    definePlugin({
      id: 'crm',
      name: 'CRM',
      description: 'Customers from the sales CRM (usually connected for the whole team).',
      authProviders: [{ id: 'crm', type: 'api_key', provider: 'crm', scopes: [] }],
      tools: [
        defineTool({
          path: 'crm.customers.list',
          name: 'List Customers',
          description: 'Lists the team’s customers.',
          inputSchema: z.object({}),
          authProvider: 'crm',
          async handler(ctx) {
            const key = await ctx.auth.getToken('crm');
            return { customers: ['Acme'], keyEnding: key.slice(-4) };
          },
        }),
      ],
    }),
  ];
}
