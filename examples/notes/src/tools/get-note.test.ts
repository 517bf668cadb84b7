import { ToolError } from '@gateway/sdk';
import { createTestContext, runTool } from '@gateway/sdk/testing';
import { describe, expect, it } from 'vitest';
import { createNotesStore } from '../store.js';
import { getNoteTool } from './get-note.js';

describe('notes.notes.get', () => {
  it('returns the caller’s note with its text', async () => {
    const store = createNotesStore();
    const note = store.create('ada', { title: 'Groceries', body: 'Milk' });
    await expect(
      runTool(getNoteTool(store), { id: note.id }, createTestContext({ userId: 'ada' })),
    ).resolves.toEqual(note);
  });

  it('answers an unknown id, or another user’s, with a ToolError', async () => {
    const store = createNotesStore();
    const note = store.create('ada', { title: 'Groceries', body: 'Milk' });
    const tool = getNoteTool(store);
    for (const [userId, id] of [
      ['ada', 'nope'],
      ['mallory', note.id],
    ] as const) {
      const error = await runTool(tool, { id }, createTestContext({ userId })).catch(
        (e: unknown) => e,
      );
      expect(ToolError.isInstance(error)).toBe(true);
      expect((error as Error).message).toBe(
        `You have no note with id "${id}". List your notes with notes.notes.list.`,
      );
    }
  });
});
