import { defineTool } from '@gateway/sdk';
import { z } from 'zod';
import type { NotesStore } from '../store.js';

/** `notes.notes.list`: the caller's notes, titles only. */
export function listNotesTool(store: NotesStore) {
  return defineTool({
    path: 'notes.notes.list',
    name: 'List Notes',
    description:
      'Lists your notes (id, title and times), most recently updated first. Read a note’s text ' +
      'with notes.notes.get. Read-only.',
    inputSchema: z.object({}),
    outputSchema: z.object({
      notes: z.array(
        z.object({
          id: z.string(),
          title: z.string(),
          createdAt: z.string(),
          updatedAt: z.string(),
        }),
      ),
    }),
    serviceAccountAllowed: true,
    async handler(ctx) {
      const notes = store.list(ctx.userId);
      ctx.logger.info('Listed notes', { count: notes.length });
      return {
        notes: notes.map(({ id, title, createdAt, updatedAt }) => ({
          id,
          title,
          createdAt,
          updatedAt,
        })),
      };
    },
  });
}
