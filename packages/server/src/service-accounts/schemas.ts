import { z } from 'zod';

/** Body of `POST /api/service-accounts`. */
export const createServiceAccountBody = z
  .object({
    name: z
      .string()
      .trim()
      .min(1)
      .max(100)
      .meta({ description: 'What the account is for, e.g. `nightly-report`' }),
    roleId: z
      .string()
      .min(1)
      .max(64)
      .meta({ description: 'The role whose tools the account may call' }),
  })
  .strict();

/** Answer of `POST /api/service-accounts`: the key is shown this once. */
export const serviceAccountCreatedSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  roleId: z.string(),
  key: z.string().meta({ description: '`gw_sa_...`: shown once, stored only as a hash' }),
  createdAt: z.iso.datetime(),
});

/** One service account as listed. */
export const serviceAccountItemSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  roleId: z.string(),
  createdBy: z.string(),
  createdAt: z.iso.datetime(),
  maskedKey: z.string().nullable(),
  lastUsedAt: z.iso.datetime().nullable(),
});

/** Answer of `GET /api/service-accounts`. */
export const serviceAccountListSchema = z.object({
  serviceAccounts: z.array(serviceAccountItemSchema),
});
