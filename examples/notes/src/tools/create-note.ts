import { defineTool, requireApproval } from '@gateway/sdk';
import { z } from 'zod';
import { bodySchema, noteSchema, titleSchema } from '../schemas.js';
import type { NotesStore } from '../store.js';

/** `notes.notes.create`: a new note, after the user approves it. */
export function createNoteTool(store: NotesStore) {
  return defineTool({
    path: 'notes.notes.create',
    name: 'Create Note',
    description:
      'Creates a note. You are asked to approve it first; nothing is saved if you decline.',
    inputSchema: z.object({ title: titleSchema, body: bodySchema.default('') }),
    outputSchema: noteSchema,
    destructive: true,
    async handler(ctx, input) {
      // Ask first, then act: a retried call runs the handler again from the top.
      await requireApproval(ctx, {
        toolPath: 'notes.notes.create',
        message: `Create the note "${input.title}"?`,
        args: input,
      });
      const note = store.create(ctx.userId, input);
      ctx.logger.info('Created note', { id: note.id });
      return note;
    },
  });
}
