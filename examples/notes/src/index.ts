import { definePlugin, type Plugin } from '@gateway/sdk';
import { createNotesStore, type NotesStoreOptions } from './store.js';
import { createNoteTool } from './tools/create-note.js';
import { deleteNoteTool } from './tools/delete-note.js';
import { getNoteTool } from './tools/get-note.js';
import { listNotesTool } from './tools/list-notes.js';
import { updateNoteTool } from './tools/update-note.js';

export type { Note } from './store.js';

/** Options of `createNotesPlugin()`. */
export type NotesPluginOptions = NotesStoreOptions;

/**
 * Creates the notes plugin with its own empty in-memory store, so each instance (and each test)
 * starts clean. Needs no credentials; the tools that change notes ask the user first.
 *
 * @throws PluginDefinitionError if the definition is invalid (it is not).
 * @example
 * const plugin = createNotesPlugin();
 */
export function createNotesPlugin(options: NotesPluginOptions = {}): Plugin {
  const store = createNotesStore(options);
  return definePlugin({
    id: 'notes',
    name: 'Notes',
    description:
      'Personal notes, kept in the gateway process while it runs (an example: a restart empties them); creating, changing and deleting ask first.',
    tools: [
      listNotesTool(store),
      getNoteTool(store),
      createNoteTool(store),
      updateNoteTool(store),
      deleteNoteTool(store),
    ],
  });
}

/** The notes plugin, one store for the whole process. */
export default createNotesPlugin();
