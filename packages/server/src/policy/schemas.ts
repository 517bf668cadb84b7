import {
  resolvedToolSchema,
  resolvedToolsSchema,
  roleAssignedSchema,
  roleCreatedSchema,
  roleListSchema,
  roleResponseSchema,
  roleUpdatedSchema,
} from '@gateway/sdk/contract';
import { roleSchema } from '@gateway/sdk/kernel';
import { z } from 'zod';

/** Body of `POST /api/policy/roles` and `PUT /api/policy/roles/:id`: a full role. */
export const roleBody = roleSchema;

/** Answer of `DELETE /api/policy/roles/:id`. */
export const roleDeletedSchema = z.object({ deleted: z.array(z.string()) });

/** Path parameters of the routes addressing one role. */
export const roleIdParams = z
  .object({ id: z.string().meta({ description: 'The role id' }) })
  .strict();

/** Path parameters of `PUT /api/policy/users/:userId/role`. */
export const userIdParams = z
  .object({
    userId: z.string().min(1).max(200).meta({ description: 'The user to assign a role to' }),
  })
  .strict();

/** Body of `PUT /api/policy/users/:userId/role`. */
export const assignRoleBody = z
  .object({ roleId: z.string().min(1).max(64).meta({ description: 'An existing role id' }) })
  .strict();

/** Query of `GET /api/policy/resolve`. */
export const resolveQuery = z
  .object({
    userId: z.string().min(1).max(200).meta({ description: 'The user whose tools to resolve' }),
  })
  .strict();

export {
  resolvedToolSchema,
  resolvedToolsSchema,
  roleAssignedSchema,
  roleCreatedSchema,
  roleListSchema,
  roleResponseSchema,
  roleUpdatedSchema,
};
