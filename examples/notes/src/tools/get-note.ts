import { defineTool } from '@gateway/sdk';
import { z } from 'zod';
import { noteIdSchema, noteNotFound, noteSchema } from '../schemas.js';
import type { NotesStore } from '../store.js';

/** `notes.notes.get`: one of the caller's notes, with its text. */
export function getNoteTool(store: NotesStore) {
  return defineTool({
    path: 'notes.notes.get',
    name: 'Get Note',
    description: 'Reads one of your notes, with its full text. Read-only.',
    inputSchema: z.object({ id: noteIdSchema }),
    outputSchema: noteSchema,
    serviceAccountAllowed: true,
    async handler(ctx, { id }) {
      const note = store.get(ctx.userId, id);
      if (note === undefined) throw noteNotFound(id);
      return note;
    },
  });
}
