import { createTestContext, runTool } from '@gateway/sdk/testing';
import { describe, expect, it } from 'vitest';
import { createNotesStore } from '../store.js';
import { createNoteTool } from './create-note.js';
import { listNotesTool } from './list-notes.js';

describe('notes.notes.list', () => {
  it('shows each user only their own notes', async () => {
    const store = createNotesStore();
    const create = createNoteTool(store);
    const list = listNotesTool(store);
    await runTool(create, { title: 'Ada’s note' }, createTestContext({ userId: 'ada' }));
    await runTool(create, { title: 'Bob’s note' }, createTestContext({ userId: 'bob' }));

    const ada = await runTool(list, {}, createTestContext({ userId: 'ada' }));
    const bob = await runTool(list, {}, createTestContext({ userId: 'bob' }));
    const carol = await runTool(list, {}, createTestContext({ userId: 'carol' }));

    expect(ada.notes.map((note) => note.title)).toEqual(['Ada’s note']);
    expect(bob.notes.map((note) => note.title)).toEqual(['Bob’s note']);
    expect(carol.notes).toEqual([]);
  });

  it('lists the most recently updated first, without the text', async () => {
    let clock = Date.parse('2026-03-01T12:00:00Z');
    const store = createNotesStore({ now: () => new Date(clock) });
    const older = store.create('ada', { title: 'Older', body: 'secret text' });
    clock += 1000;
    const newer = store.create('ada', { title: 'Newer', body: '' });

    const { notes } = await runTool(listNotesTool(store), {}, createTestContext({ userId: 'ada' }));

    expect(notes.map((note) => note.id)).toEqual([newer.id, older.id]);
    expect(notes[1]).toEqual({
      id: older.id,
      title: 'Older',
      createdAt: older.createdAt,
      updatedAt: older.updatedAt,
    });
  });
});
