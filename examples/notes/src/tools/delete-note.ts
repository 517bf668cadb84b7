import { defineTool, requireApproval } from '@gateway/sdk';
import { z } from 'zod';
import { noteIdSchema, noteNotFound } from '../schemas.js';
import type { NotesStore } from '../store.js';

/** `notes.notes.delete`: removes a note for good, after the user approves it. */
export function deleteNoteTool(store: NotesStore) {
  return defineTool({
    path: 'notes.notes.delete',
    name: 'Delete Note',
    description:
      'Deletes one of your notes permanently. You are asked to approve it first; nothing is ' +
      'deleted if you decline.',
    inputSchema: z.object({ id: noteIdSchema }),
    outputSchema: z.object({ deleted: z.string().describe('The id of the deleted note.') }),
    destructive: true,
    async handler(ctx, { id }) {
      // Reading changes nothing, and lets the approval name the note (or spares it for an unknown id).
      const current = store.get(ctx.userId, id);
      if (current === undefined) throw noteNotFound(id);
      await requireApproval(ctx, {
        toolPath: 'notes.notes.delete',
        message: `Delete the note "${current.title}"? This cannot be undone.`,
        args: { id },
      });
      if (!store.delete(ctx.userId, id)) throw noteNotFound(id);
      ctx.logger.info('Deleted note', { id });
      return { deleted: id };
    },
  });
}
