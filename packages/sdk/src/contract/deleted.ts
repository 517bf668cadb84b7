import { z } from 'zod';

/** Answer of the delete routes: every id removed. */
export const deletedSchema = z.object({
  deleted: z.array(z.uuid()).meta({ description: 'The ids deleted, the addressed one first' }),
});
