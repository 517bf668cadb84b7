import { ToolError } from '@gateway/sdk';
import { z } from 'zod';

/** A note as the tools return it. */
export const noteSchema = z.object({
  id: z.string().describe('The note’s id.'),
  title: z.string(),
  body: z.string(),
  createdAt: z.string().describe('ISO 8601 creation time.'),
  updatedAt: z.string().describe('ISO 8601 time of the last change.'),
});

export const noteIdSchema = z
  .string()
  .min(1)
  .max(100)
  .describe('The note’s id, as returned by notes.notes.list or notes.notes.create.');

export const titleSchema = z.string().trim().min(1).max(200).describe('Note title, one line.');

export const bodySchema = z.string().max(20_000).describe('Note text, plain text or Markdown.');

/** The error for a note the user does not have (including another user's note). */
export function noteNotFound(id: string): ToolError {
  return new ToolError(`You have no note with id "${id}". List your notes with notes.notes.list.`);
}
