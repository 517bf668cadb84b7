import { z } from 'zod';

/** Answer of `GET /healthz` (liveness): the process serves, and how its database was when last known. */
export const healthSchema = z.object({
  ok: z.literal(true),
  database: z
    .enum(['up', 'down'])
    .meta({ description: 'The database when last known; `/healthz` never waits for it' }),
});
