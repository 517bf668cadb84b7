import { definePlugin, defineTool, type Plugin } from '@gateway/sdk';
import { z } from 'zod';

/**
 * Small plugins for the registry, policy and connector tests: a notes plugin (read and
 * destructive tools, one with an output schema), an API-key forecast plugin (one tool open to
 * service accounts), an OAuth plugin and one with its own OAuth provider.
 */
export function notesPlugin(): Plugin {
  return definePlugin({
    id: 'notes',
    name: 'Notes',
    description: 'Keeps notes.',
    tools: [
      defineTool({
        path: 'notes.notes.list',
        name: 'List Notes',
        description: 'Lists notes.',
        inputSchema: z.object({ limit: z.number().int().min(1).max(100).default(20) }),
        outputSchema: z.object({ notes: z.array(z.string()) }),
        serviceAccountAllowed: true,
        handler: async () => ({ notes: [] }),
      }),
      defineTool({
        path: 'notes.notes.create',
        name: 'Create Note',
        description: 'Creates a note.',
        inputSchema: z.object({ text: z.string().min(1).describe('The note') }),
        destructive: true,
        handler: async () => ({ ok: true }),
      }),
      defineTool({
        path: 'notes.admin.purge',
        name: 'Purge Notes',
        description: 'Deletes every note.',
        inputSchema: z.object({}),
        destructive: true,
        handler: async () => ({ ok: true }),
      }),
    ],
  });
}

/** An API-key plugin: provider `forecast`, served by `FORECAST_API_KEY`. */
export function forecastPlugin(): Plugin {
  return definePlugin({
    id: 'forecast',
    name: 'Forecast',
    description: 'Weather forecasts.',
    authProviders: [{ id: 'forecast', type: 'api_key', provider: 'forecast', scopes: [] }],
    tools: [
      defineTool({
        path: 'forecast.daily.get',
        name: 'Get Daily Forecast',
        description: "Tomorrow's forecast for a city.",
        inputSchema: z.object({ city: z.string() }),
        authProvider: 'forecast',
        serviceAccountAllowed: true,
        handler: async () => ({ summary: 'sunny' }),
      }),
    ],
  });
}

/** An OAuth plugin on the shipped `github` provider. */
export function repoPlugin(): Plugin {
  return definePlugin({
    id: 'repos',
    name: 'Repositories',
    description: 'Lists repositories.',
    authProviders: [{ id: 'github', type: 'oauth2', provider: 'github', scopes: ['repo'] }],
    tools: [
      defineTool({
        path: 'repos.repos.list',
        name: 'List Repositories',
        description: 'Lists repositories.',
        inputSchema: z.object({ owner: z.string() }),
        authProvider: 'github',
        handler: async () => [],
      }),
    ],
  });
}

/** A plugin with its own OAuth provider `wiki` (never connected: Admin → Providers gives it a client). */
export function wikiPlugin(): Plugin {
  return definePlugin({
    id: 'wiki',
    name: 'Wiki',
    description: 'Reads wiki pages.',
    authProviders: [
      {
        id: 'wiki',
        type: 'oauth2',
        oauth: {
          authorizationUrl: 'https://wiki.example/oauth/authorize',
          tokenUrl: 'https://wiki.example/oauth/token',
          scopes: ['read'],
        },
      },
    ],
    tools: [
      defineTool({
        path: 'wiki.pages.get',
        name: 'Get Page',
        description: 'Gets a wiki page.',
        inputSchema: z.object({ title: z.string() }),
        authProvider: 'wiki',
        handler: async () => ({ text: '' }),
      }),
    ],
  });
}

/** A plugin whose tools do not share one namespace: mounting it must fail. */
export function strayPlugin(): Plugin {
  return definePlugin({
    id: 'stray',
    name: 'Stray',
    description: 'Tools under two namespaces.',
    tools: [
      defineTool({
        path: 'stray.things.list',
        name: 'List Things',
        description: 'Lists things.',
        inputSchema: z.object({}),
        handler: async () => [],
      }),
      defineTool({
        path: 'elsewhere.things.get',
        name: 'Get Thing',
        description: 'Gets a thing.',
        inputSchema: z.object({}),
        handler: async () => ({}),
      }),
      defineTool({
        path: 'other.things.get',
        name: 'Get Other Thing',
        description: 'Gets another thing.',
        inputSchema: z.object({}),
        handler: async () => ({}),
      }),
    ],
  });
}

/** Reads a JSON answer as `T` (tests only: the shape is what is being asserted). */
export async function json<T>(response: Response): Promise<T> {
  return (await response.json()) as T;
}
