import { z } from 'zod';

/** A role as the routes answer it (request bodies use the sdk's `roleSchema` itself). */
export const roleResponseSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    patterns: z
      .array(z.string())
      .meta({ description: 'Tool-path patterns (`*` one segment, `**` one or more)' }),
  })
  .meta({ description: 'A role: which tool paths its holders may see and call' });

/** Answer of `GET /api/policy/roles`. */
export const roleListSchema = z.object({ roles: z.array(roleResponseSchema) });

/** Answer of `POST /api/policy/roles`. */
export const roleCreatedSchema = z.object({ created: roleResponseSchema });

/** Answer of `PUT /api/policy/roles/:id`. */
export const roleUpdatedSchema = z.object({ updated: roleResponseSchema });

/** Answer of `PUT /api/policy/users/:userId/role`. */
export const roleAssignedSchema = z.object({ userId: z.string(), roleId: z.string() });

/** One tool of a resolve answer. */
export const resolvedToolSchema = z.object({
  path: z.string().meta({ description: 'Dot-separated tool path; the MCP tool name' }),
  name: z.string().meta({ description: 'Title Case display name' }),
  description: z.string(),
  destructive: z
    .boolean()
    .meta({ description: 'The tool creates, updates or deletes data (it asks first)' }),
  authProvider: z.string().optional().meta({ description: 'The auth provider the tool needs' }),
  pluginId: z.string(),
  inputSchema: z
    .record(z.string(), z.unknown())
    .meta({ description: 'JSON Schema of the tool input' }),
});

/** Answer of `GET /api/policy/resolve`. */
export const resolvedToolsSchema = z.object({
  userId: z.string(),
  tools: z
    .array(resolvedToolSchema)
    .meta({ description: "The tools the user's role allows, sorted by path" }),
});
