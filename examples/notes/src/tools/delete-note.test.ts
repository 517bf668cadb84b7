import { ApprovalDeniedError, ToolError } from '@gateway/sdk';
import { createTestContext, runTool } from '@gateway/sdk/testing';
import { describe, expect, it } from 'vitest';
import { createNotesStore } from '../store.js';
import { deleteNoteTool } from './delete-note.js';

function setup() {
  const store = createNotesStore();
  const note = store.create('ada', { title: 'Groceries', body: 'Milk' });
  return { store, note, tool: deleteNoteTool(store) };
}

describe('notes.notes.delete', () => {
  it('deletes the note when approved', async () => {
    const { store, note, tool } = setup();
    const ctx = createTestContext({ userId: 'ada', approve: true });

    await expect(runTool(tool, { id: note.id }, ctx)).resolves.toEqual({ deleted: note.id });

    expect(store.list('ada')).toEqual([]);
    expect(ctx.elicitations).toEqual([
      {
        toolPath: 'notes.notes.delete',
        message: 'Delete the note "Groceries"? This cannot be undone.',
        args: { id: note.id },
      },
    ]);
  });

  it('keeps the note when the user declines', async () => {
    const { store, note, tool } = setup();
    const before = store.list('ada');

    const error = await runTool(
      tool,
      { id: note.id },
      createTestContext({ userId: 'ada', approve: false }),
    ).catch((e: unknown) => e);

    expect(ApprovalDeniedError.isInstance(error)).toBe(true);
    expect(store.list('ada')).toEqual(before);
  });

  it('answers an unknown id with a ToolError, without asking', async () => {
    const { tool } = setup();
    const ctx = createTestContext({ userId: 'ada' });
    const error = await runTool(tool, { id: 'nope' }, ctx).catch((e: unknown) => e);
    expect(ToolError.isInstance(error)).toBe(true);
    expect(ctx.elicitations).toEqual([]);
  });

  it('cannot delete another user’s note', async () => {
    const { store, note, tool } = setup();
    await expect(
      runTool(tool, { id: note.id }, createTestContext({ userId: 'mallory' })),
    ).rejects.toThrow(ToolError);
    expect(store.get('ada', note.id)).toEqual(note);
  });
});
