import { approvalPageSchema, approvalSchema, decidedSchema } from '@gateway/sdk/contract';
import { z } from 'zod';
import { userIdSchema } from '../http/common-schemas.js';

/** Query of `GET /api/approvals`. */
export const listApprovalsQuery = z
  .object({
    userId: userIdSchema,
    status: z
      .enum(['pending', 'approved', 'denied', 'expired', 'all'])
      .default('pending')
      .meta({ description: 'Which approvals to list; default `pending`' }),
    cursor: z
      .string()
      .min(1)
      .max(500)
      .optional()
      .meta({ description: 'The previous `nextCursor`' }),
    limit: z.coerce.number().int().min(1).max(200).default(50),
  })
  .strict();

/** Body of `POST /api/approvals/:id`. */
export const decideApprovalBody = z
  .object({
    decision: z
      .enum(['approve', 'deny'])
      .meta({ description: '`approve` lets the tool act; `deny` stops it' }),
  })
  .strict();

export { approvalPageSchema, approvalSchema, decidedSchema };
