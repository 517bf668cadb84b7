import { defineTool, requireApproval } from '@gateway/sdk';
import { z } from 'zod';
import { bodySchema, noteIdSchema, noteNotFound, noteSchema, titleSchema } from '../schemas.js';
import type { NotesStore } from '../store.js';

/** `notes.notes.update`: changes a note's title or text, after the user approves it. */
export function updateNoteTool(store: NotesStore) {
  return defineTool({
    path: 'notes.notes.update',
    name: 'Update Note',
    description:
      'Replaces the title, the text or both of one of your notes. You are asked to approve the ' +
      'change first; nothing changes if you decline.',
    inputSchema: z
      .object({
        id: noteIdSchema,
        title: titleSchema.optional().describe('New title; leave out to keep the current one.'),
        body: bodySchema.optional().describe('New text, replacing the old; leave out to keep it.'),
      })
      .refine((input) => input.title !== undefined || input.body !== undefined, {
        message: 'Give a new title, a new body or both.',
      }),
    outputSchema: noteSchema,
    destructive: true,
    async handler(ctx, input) {
      // Reading changes nothing, and lets the approval name the note (or spares it for an unknown id).
      const current = store.get(ctx.userId, input.id);
      if (current === undefined) throw noteNotFound(input.id);
      await requireApproval(ctx, {
        toolPath: 'notes.notes.update',
        message: `Update the note "${current.title}"?`,
        args: input,
      });
      const { id, ...fields } = input;
      // The note may have been deleted while the user was deciding.
      const note = store.update(ctx.userId, id, fields);
      if (note === undefined) throw noteNotFound(id);
      ctx.logger.info('Updated note', { id });
      return note;
    },
  });
}
