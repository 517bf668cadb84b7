import { executionDetailSchema, executionPageSchema, executionSchema } from '@gateway/sdk/contract';
import { z } from 'zod';
import { filterFields } from './filters.js';

/** Query of `GET /api/executions`: the filters, and a page. */
export const listExecutionsQuery = z
  .object({
    ...filterFields,
    cursor: z
      .string()
      .min(1)
      .max(500)
      .optional()
      .meta({ description: 'The `nextCursor` of the previous page (with the same filters)' }),
    limit: z.coerce
      .number()
      .int()
      .min(1)
      .max(200)
      .default(50)
      .meta({ description: 'Records per page (1-200, default 50)' }),
  })
  .strict();

/** Query of `GET /api/executions/export`: the filters, and the format. */
export const exportExecutionsQuery = z
  .object({
    ...filterFields,
    format: z
      .enum(['jsonl', 'csv'])
      .default('jsonl')
      .meta({ description: '`jsonl` (one record a line, default) or `csv`' }),
  })
  .strict();

/** Path of `GET /api/executions/:id`. */
export const executionIdParams = z.object({ id: z.string().min(1).max(200) }).strict();

export { executionDetailSchema, executionPageSchema, executionSchema };
