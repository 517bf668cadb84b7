import { z } from 'zod';

/** An execution record as answered. */
export const executionSchema = z
  .object({
    id: z
      .string()
      .meta({ description: 'The execution id, as handlers see it (`call.executionId`)' }),
    userId: z.string(),
    toolPath: z.string(),
    startedAt: z.string().meta({ description: 'ISO 8601' }),
    durationMs: z.number().nullable(),
    outcome: z
      .enum(['ok', 'error', 'denied', 'timeout'])
      .nullable()
      .meta({ description: '`null` while the call runs or waits for an answer' }),
    approval: z.string().nullable().meta({
      description:
        '`approved`, `declined`, `cancelled` or `expired` when the tool asked; `pending` while it waits for the answer',
    }),
    approvedBy: z.string().nullable().meta({ description: 'Who answered the approval' }),
    arguments: z.unknown().meta({ description: 'The arguments, secrets redacted' }),
    error: z.string().nullable(),
    endpointId: z
      .string()
      .nullable()
      .meta({ description: 'The MCP endpoint the call came through' }),
    clientId: z.string().nullable().meta({
      description: 'The OAuth client of that endpoint, when it is of kind `oauth`',
    }),
  })
  .meta({ description: 'One tool call' });

/** Answer of `GET /api/executions`. */
export const executionPageSchema = z.object({
  executions: z.array(executionSchema),
  nextCursor: z.string().nullable().meta({ description: 'Cursor of the next (older) page' }),
});

/** Answer of `GET /api/executions/:id`. */
export const executionDetailSchema = z.object({ execution: executionSchema });
