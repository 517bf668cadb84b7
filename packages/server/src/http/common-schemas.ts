import { deletedSchema } from '@gateway/sdk/contract';
import { z } from 'zod';

/** A user id as routes take it (better-auth ids are opaque strings, not always UUIDs). */
export const userIdSchema = z.string().min(1).max(200).meta({ description: 'The user acted for' });

/** The `?userId=` query of the routes that act for one user. */
export const userIdQuery = z.object({ userId: userIdSchema }).strict();

export { deletedSchema };
