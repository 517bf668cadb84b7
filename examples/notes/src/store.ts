import { randomUUID } from 'node:crypto';

/** A note as the store keeps it. Times are ISO 8601 strings. */
export interface Note {
  id: string;
  title: string;
  body: string;
  createdAt: string;
  updatedAt: string;
}

/** Options of `createNotesStore()`. */
export interface NotesStoreOptions {
  /** The clock; tests pass a fixed one. Default `() => new Date()`. */
  now?: () => Date;
}

/**
 * Notes kept in memory, one shelf per user: no user can read or change another's notes. Every
 * method returns copies, so callers cannot change stored notes by accident.
 */
export interface NotesStore {
  /** The user's notes, most recently updated first. */
  list(userId: string): Note[];
  get(userId: string, id: string): Note | undefined;
  create(userId: string, fields: { title: string; body: string }): Note;
  /** Returns `undefined` when the user has no note `id`. */
  update(userId: string, id: string, fields: { title?: string; body?: string }): Note | undefined;
  /** Returns whether the note existed. */
  delete(userId: string, id: string): boolean;
}

/**
 * Creates an empty in-memory notes store. State lives as long as the store; a real plugin would
 * keep it in a database.
 *
 * @example
 * const store = createNotesStore();
 * const note = store.create('user-1', { title: 'Groceries', body: 'Milk' });
 */
export function createNotesStore(options: NotesStoreOptions = {}): NotesStore {
  const now = options.now ?? (() => new Date());
  const shelves = new Map<string, Map<string, Note>>();
  const shelf = (userId: string) => {
    let notes = shelves.get(userId);
    if (notes === undefined) {
      notes = new Map();
      shelves.set(userId, notes);
    }
    return notes;
  };
  const copy = (note: Note): Note => ({ ...note });

  return {
    list(userId) {
      return [...(shelves.get(userId)?.values() ?? [])]
        .sort((a, b) => b.updatedAt.localeCompare(a.updatedAt))
        .map(copy);
    },
    get(userId, id) {
      const note = shelves.get(userId)?.get(id);
      return note && copy(note);
    },
    create(userId, fields) {
      const at = now().toISOString();
      const note: Note = { id: randomUUID(), ...fields, createdAt: at, updatedAt: at };
      shelf(userId).set(note.id, note);
      return copy(note);
    },
    update(userId, id, fields) {
      const note = shelves.get(userId)?.get(id);
      if (note === undefined) return undefined;
      if (fields.title !== undefined) note.title = fields.title;
      if (fields.body !== undefined) note.body = fields.body;
      note.updatedAt = now().toISOString();
      return copy(note);
    },
    delete(userId, id) {
      return shelves.get(userId)?.delete(id) ?? false;
    },
  };
}
