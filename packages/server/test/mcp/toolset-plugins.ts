import { definePlugin, defineTool, type Plugin, requireApproval } from '@gateway/sdk';
import { z } from 'zod';

/**
 * Plugins for the toolset and discovery tests: `notes` (list, get, create and delete, the last
 * two asking first, as the example notes plugin does) and `crm` (contacts, and notes attached to
 * them, so a search for notes has more than one candidate). Created notes are kept in `created`.
 */
export function toolsetPlugins(created: string[] = []): Plugin[] {
  const notes = definePlugin({
    id: 'notes',
    name: 'Notes',
    description: 'Personal notes.',
    tools: [
      defineTool({
        path: 'notes.notes.list',
        name: 'List Notes',
        description: 'Lists your notes, most recent first.',
        inputSchema: z.object({}),
        outputSchema: z.object({ notes: z.array(z.string()) }),
        async handler() {
          return { notes: [...created] };
        },
      }),
      defineTool({
        path: 'notes.notes.get',
        name: 'Get Note',
        description: 'Reads one note.',
        inputSchema: z.object({ noteId: z.string() }),
        async handler(_ctx, { noteId }) {
          return { noteId };
        },
      }),
      defineTool({
        path: 'notes.notes.create',
        name: 'Create Note',
        description: 'Creates a note.\nYou are asked to approve it first.',
        inputSchema: z.object({ title: z.string().min(1) }),
        outputSchema: z.object({ title: z.string(), executionId: z.string() }),
        destructive: true,
        async handler(ctx, { title }, call) {
          await requireApproval(ctx, {
            toolPath: 'notes.notes.create',
            message: `Create the note "${title}"?`,
            args: { title },
          });
          created.push(title);
          return { title, executionId: call.executionId };
        },
      }),
      defineTool({
        path: 'notes.notes.delete',
        name: 'Delete Note',
        description: 'Deletes a note after you approve.',
        inputSchema: z.object({ noteId: z.string() }),
        destructive: true,
        async handler(ctx, { noteId }) {
          await requireApproval(ctx, {
            toolPath: 'notes.notes.delete',
            message: `Delete note ${noteId}?`,
          });
          return { deleted: noteId };
        },
      }),
    ],
  });
  const crm = definePlugin({
    id: 'crm',
    name: 'CRM',
    description: 'Customers.',
    tools: [
      defineTool({
        path: 'crm.contacts.create',
        name: 'Create Contact',
        description: 'Adds a contact.',
        inputSchema: z.object({ fullName: z.string() }),
        async handler(_ctx, { fullName }) {
          return { fullName };
        },
      }),
      defineTool({
        path: 'crm.contacts.list',
        name: 'List Contacts',
        description: 'Lists contacts.',
        inputSchema: z.object({}),
        async handler() {
          return { contacts: [] };
        },
      }),
      defineTool({
        path: 'crm.notes.attach',
        name: 'Attach Note',
        description: 'Attaches a note to a contact (Café orders included).',
        inputSchema: z.object({ contactId: z.string(), text: z.string() }),
        async handler() {
          return { ok: true };
        },
      }),
    ],
  });
  return [notes, crm];
}
