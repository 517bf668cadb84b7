import { ApprovalDeniedError, ToolError } from '@gateway/sdk';
import { createTestContext, runTool } from '@gateway/sdk/testing';
import { describe, expect, it } from 'vitest';
import { createNotesStore } from '../store.js';
import { updateNoteTool } from './update-note.js';

function setup() {
  let clock = Date.parse('2026-03-01T12:00:00Z');
  const store = createNotesStore({ now: () => new Date(clock) });
  const note = store.create('ada', { title: 'Groceries', body: 'Milk' });
  clock += 60_000;
  return { store, note, tool: updateNoteTool(store) };
}

describe('notes.notes.update', () => {
  it('changes the note when approved, keeping fields left out', async () => {
    const { store, note, tool } = setup();
    const ctx = createTestContext({ userId: 'ada', approve: true });

    const updated = await runTool(tool, { id: note.id, body: 'Milk, eggs' }, ctx);

    expect(updated).toEqual({
      ...note,
      body: 'Milk, eggs',
      updatedAt: '2026-03-01T12:01:00.000Z',
    });
    expect(store.get('ada', note.id)).toEqual(updated);
    expect(ctx.elicitations).toEqual([
      {
        toolPath: 'notes.notes.update',
        message: 'Update the note "Groceries"?',
        args: { id: note.id, body: 'Milk, eggs' },
      },
    ]);
  });

  it('changes nothing when the user declines', async () => {
    const { store, note, tool } = setup();
    const before = store.list('ada');

    const error = await runTool(
      tool,
      { id: note.id, title: 'Shopping' },
      createTestContext({ userId: 'ada', approve: false }),
    ).catch((e: unknown) => e);

    expect(ApprovalDeniedError.isInstance(error)).toBe(true);
    expect(store.list('ada')).toEqual(before);
  });

  it('answers an unknown id with a ToolError, without asking', async () => {
    const { tool } = setup();
    const ctx = createTestContext({ userId: 'ada' });
    const error = await runTool(tool, { id: 'nope', title: 'X' }, ctx).catch((e: unknown) => e);
    expect(ToolError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain('no note with id "nope"');
    expect(ctx.elicitations).toEqual([]);
  });

  it('treats another user’s note as unknown', async () => {
    const { store, note, tool } = setup();
    const error = await runTool(
      tool,
      { id: note.id, title: 'Hijacked' },
      createTestContext({ userId: 'mallory' }),
    ).catch((e: unknown) => e);
    expect(ToolError.isInstance(error)).toBe(true);
    expect(store.get('ada', note.id)?.title).toBe('Groceries');
  });

  it('fails if the note is deleted while the user decides', async () => {
    const { store, note, tool } = setup();
    const ctx = createTestContext({
      userId: 'ada',
      approve: () => {
        store.delete('ada', note.id);
        return true;
      },
    });
    await expect(runTool(tool, { id: note.id, title: 'Late' }, ctx)).rejects.toThrow(ToolError);
    expect(store.list('ada')).toEqual([]);
  });

  it('needs a new title or body', async () => {
    const { note, tool } = setup();
    await expect(
      runTool(tool, { id: note.id }, createTestContext({ userId: 'ada' })),
    ).rejects.toThrow('Give a new title, a new body or both.');
  });
});
