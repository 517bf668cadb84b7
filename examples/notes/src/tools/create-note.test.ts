import { ApprovalDeniedError } from '@gateway/sdk';
import { createTestContext, runTool } from '@gateway/sdk/testing';
import { describe, expect, it } from 'vitest';
import { createNotesStore } from '../store.js';
import { createNoteTool } from './create-note.js';

describe('notes.notes.create', () => {
  it('asks before saving, then saves the note when approved', async () => {
    const store = createNotesStore({ now: () => new Date('2026-03-01T12:00:00Z') });
    const ctx = createTestContext({
      userId: 'ada',
      approve: (request) => {
        // The note must not exist while the user is still deciding.
        expect(store.list('ada')).toEqual([]);
        return request.toolPath === 'notes.notes.create';
      },
    });

    const note = await runTool(createNoteTool(store), { title: 'Groceries', body: 'Milk' }, ctx);

    expect(note).toMatchObject({
      title: 'Groceries',
      body: 'Milk',
      createdAt: '2026-03-01T12:00:00.000Z',
      updatedAt: '2026-03-01T12:00:00.000Z',
    });
    expect(store.list('ada')).toEqual([note]);
    expect(ctx.elicitations).toEqual([
      {
        toolPath: 'notes.notes.create',
        message: 'Create the note "Groceries"?',
        args: { title: 'Groceries', body: 'Milk' },
      },
    ]);
  });

  it('saves nothing when the user declines', async () => {
    const store = createNotesStore();
    const before = store.list('ada');
    const ctx = createTestContext({ userId: 'ada', approve: false });

    const error = await runTool(createNoteTool(store), { title: 'Groceries' }, ctx).catch(
      (e: unknown) => e,
    );

    expect(ApprovalDeniedError.isInstance(error)).toBe(true);
    expect(store.list('ada')).toEqual(before);
  });

  it('creates the note once when a declined call is retried and approved', async () => {
    const store = createNotesStore();
    const tool = createNoteTool(store);
    await expect(
      runTool(tool, { title: 'Plan' }, createTestContext({ userId: 'ada', approve: false })),
    ).rejects.toThrow(ApprovalDeniedError);
    await runTool(tool, { title: 'Plan' }, createTestContext({ userId: 'ada', approve: true }));
    expect(store.list('ada').map((note) => note.title)).toEqual(['Plan']);
  });

  it('rejects an empty title without asking', async () => {
    const ctx = createTestContext();
    await expect(runTool(createNoteTool(createNotesStore()), { title: ' ' }, ctx)).rejects.toThrow(
      'Invalid input for notes.notes.create',
    );
    expect(ctx.elicitations).toEqual([]);
  });
});
