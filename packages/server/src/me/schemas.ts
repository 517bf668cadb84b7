import {
  meSchema,
  meServiceAccountSchema,
  meServiceSchema,
  meUserSchema,
} from '@gateway/sdk/contract';
import type { z } from 'zod';

export type Me = z.infer<typeof meSchema>;

export { meSchema, meServiceAccountSchema, meServiceSchema, meUserSchema };
