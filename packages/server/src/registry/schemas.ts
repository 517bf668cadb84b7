import { NAMESPACE_MAX_LENGTH, NAMESPACE_PATTERN } from '@gateway/sdk';
import { z } from 'zod';

/** Body of `POST /api/registry/sources`. */
export const registerSourceBody = z
  .object({
    type: z.literal('plugin').meta({ description: 'The kind of source; `plugin` is the one kind' }),
    id: z
      .string()
      .regex(
        /^[a-z0-9][a-z0-9_-]{0,63}$/,
        'Use 1-64 of a-z, 0-9, _ and -, starting with a letter or digit',
      )
      .meta({ description: 'The registration id' }),
    namespace: z
      .string()
      .regex(NAMESPACE_PATTERN, 'Use a-z, 0-9 and _ (underscore style), e.g. `google_drive`')
      .max(NAMESPACE_MAX_LENGTH, `Use at most ${NAMESPACE_MAX_LENGTH} characters`)
      .meta({ description: 'Every tool path of the plugin must start with `<namespace>.`' }),
    pluginId: z.string().min(1).max(100).meta({ description: 'A plugin the gateway has loaded' }),
  })
  .strict();

/** A stored registration. */
export const sourceSchema = z.object({
  id: z.string(),
  type: z.literal('plugin'),
  namespace: z.string(),
  pluginId: z.string(),
  createdAt: z.iso.datetime(),
});

/** Answer of `POST /api/registry/sources`. */
export const sourceRegisteredSchema = z.object({
  source: sourceSchema,
  tools: z.array(z.string()).meta({ description: 'The paths of the tools now served' }),
});

/** Answer of `GET /api/registry/sources`. */
export const sourceListSchema = z.object({
  sources: z.array(
    sourceSchema.extend({
      mounted: z.boolean().meta({
        description:
          'False when the plugin is not loaded on this instance: its tools are not served',
      }),
      tools: z.array(z.string()).meta({ description: 'The paths of the tools it serves' }),
    }),
  ),
});

/** Path parameters of `DELETE /api/registry/sources/:id`. */
export const sourceIdParams = z
  .object({ id: z.string().meta({ description: 'The registration id' }) })
  .strict();

/** Answer of `DELETE /api/registry/sources/:id`. */
export const sourceDeletedSchema = z.object({ deleted: z.array(z.string()) });
