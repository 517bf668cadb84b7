import { z } from 'zod';

/** Path parameters of `PUT` and `DELETE /api/providers/:id`. */
export const providerIdParams = z
  .object({ id: z.string().meta({ description: "A loaded plugin's own OAuth provider id" }) })
  .strict();

/** Body of `PUT /api/providers/:id`. */
export const setProviderClientBody = z
  .object({
    clientId: z
      .string()
      .trim()
      .min(1)
      .max(500)
      .meta({ description: 'The client id the provider issued to this gateway' }),
    clientSecret: z.string().min(1).max(2000).optional().meta({
      description:
        'The client secret; stored encrypted and never returned. Left out: the stored one is kept',
    }),
  })
  .strict();

/** One plugin OAuth provider as Admin → Providers shows it: never its secret. */
export const providerItemSchema = z.object({
  id: z.string().meta({ description: 'The provider id (`gateway connect <id>`)' }),
  pluginId: z.string(),
  pluginName: z.string(),
  callbackUrl: z.string().meta({ description: 'The redirect URI to register with the provider' }),
  client: z.enum(['settings', 'admin', 'none']).meta({
    description:
      'Where the client in force comes from: `settings` (`<ID>_CLIENT_ID` and `<ID>_CLIENT_SECRET`, which win), `admin` (given here), or `none` (users cannot connect yet)',
  }),
  clientId: z.string().nullable().meta({ description: 'The client id in force' }),
  secretSet: z.boolean().meta({ description: 'Whether a client secret is in force (never shown)' }),
  settings: z.array(z.string()).meta({
    description:
      'The two settings (`<ID>_CLIENT_ID`, `<ID>_CLIENT_SECRET`) that give the client instead, and win',
  }),
  stored: z
    .object({ clientId: z.string(), updatedBy: z.string(), updatedAt: z.iso.datetime() })
    .nullable()
    .meta({
      description: 'The client an admin gave, when there is one (settings may override it)',
    }),
});

/** Answer of `GET /api/providers`. */
export const providerListSchema = z.object({ providers: z.array(providerItemSchema) });
