import { z } from 'zod';

/** An approval as answered. */
export const approvalSchema = z
  .object({
    id: z.string(),
    executionId: z.string().meta({ description: 'The tool call waiting for the decision' }),
    userId: z.string(),
    toolPath: z.string(),
    message: z.string().meta({ description: 'What the tool asks, in its own words' }),
    args: z.unknown().meta({ description: 'The arguments being approved, secrets redacted' }),
    status: z.enum(['pending', 'approved', 'denied', 'expired']),
    decidedBy: z.string().nullable(),
    createdAt: z.string(),
    decidedAt: z.string().nullable(),
    expiresAt: z.string().meta({ description: 'When a pending approval expires (as denied)' }),
  })
  .meta({ description: 'A request by a tool to act, and its decision' });

/** Answer of `GET /api/approvals`. */
export const approvalPageSchema = z.object({
  approvals: z.array(approvalSchema),
  nextCursor: z.string().nullable(),
});

/** Answer of `POST /api/approvals/:id`. */
export const decidedSchema = z.object({ approval: approvalSchema });
