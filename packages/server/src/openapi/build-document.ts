import { z } from 'zod';
import { errorBodySchema } from '../http/errors.js';
import type { Access, AnyRoute } from '../http/route.js';

type Json = { [key: string]: unknown };

/** An OpenAPI 3.1 document (the parts the gateway writes). */
export interface OpenApiDocument {
  openapi: '3.1.0';
  info: { title: string; version: string; description: string };
  servers: { url: string }[];
  tags: { name: string }[];
  paths: Record<string, Record<string, OpenApiOperation>>;
  components: {
    schemas: Record<string, Json>;
    securitySchemes: Record<string, Json>;
  };
}

/** One operation of an {@link OpenApiDocument}. */
export interface OpenApiOperation {
  operationId: string;
  summary: string;
  description: string;
  tags: string[];
  /** Who may call it, as the route declares (`public`, `user`, `admin`, ...). */
  'x-access': Access;
  security: Record<string, string[]>[];
  parameters?: OpenApiParameter[];
  requestBody?: { required: true; content: { 'application/json': { schema: Json } } };
  responses: Record<
    string,
    { description: string; content?: { 'application/json': { schema: Json } } }
  >;
}

/** A path or query parameter. */
export interface OpenApiParameter {
  name: string;
  in: 'path' | 'query';
  required: boolean;
  description?: string;
  schema: Json;
}

/** Options of {@link buildOpenApiDocument}. */
export interface OpenApiOptions {
  /** {base_url}, the document's server. */
  baseUrl: string;
  /** The API version: the server package's version. */
  version: string;
  title?: string;
}

/** The reference to the shared error body every non-2xx answer uses. */
export const ERROR_BODY_REF = '#/components/schemas/ErrorBody';

const securitySchemes: Record<string, Json> = {
  bearerAuth: {
    type: 'http',
    scheme: 'bearer',
    description: 'A CLI token (`gw_cli_...`) or a service-account key (`gw_sa_...`)',
  },
  sessionCookie: {
    type: 'apiKey',
    in: 'cookie',
    name: 'better-auth.session_token',
    description: 'The web app session of a signed-in user',
  },
  serviceSecret: {
    type: 'http',
    scheme: 'bearer',
    description: 'SERVICE_API_SECRET: a trusted server, which may act for any user',
  },
};

const securityOf: Record<Access, Record<string, string[]>[]> = {
  public: [],
  user: [{ bearerAuth: [] }, { sessionCookie: [] }, { serviceSecret: [] }],
  admin: [{ bearerAuth: [] }, { sessionCookie: [] }],
  service: [{ serviceSecret: [] }],
  'service-or-admin': [{ bearerAuth: [] }, { sessionCookie: [] }, { serviceSecret: [] }],
};

/** What each access level means, written into every operation's description. */
export const ACCESS_DESCRIPTIONS: Record<Access, string> = {
  public: 'Public: no credentials needed.',
  user: 'Any signed-in caller: a session, a CLI token, a service-account key or the service secret. A route acting for a `userId` accepts only that user, an admin or the service secret.',
  admin: 'An admin user.',
  service: 'Only a trusted server holding SERVICE_API_SECRET.',
  'service-or-admin': 'An admin user, or a trusted server holding SERVICE_API_SECRET.',
};

const defaultErrors: Record<number, string> = {
  400: 'Invalid input (`validation_failed`, zod issues in `details`) or a bad request',
  401: 'No credentials, or invalid ones',
  403: 'The caller may not do this',
};

/**
 * Builds the OpenAPI 3.1 document of `routes` from their zod schemas: paths (`:id` becomes
 * `{id}`), path and query parameters, JSON request bodies, each documented answer (2xx with its
 * schema, every error status with the shared `ErrorBody`), and the security each access level
 * takes. Build it once and serve the result: generating JSON Schema is not free.
 *
 * @example
 * const document = buildOpenApiDocument(await gateway.routes(), { baseUrl, version: '0.1.0' });
 */
export function buildOpenApiDocument(
  routes: readonly AnyRoute[],
  options: OpenApiOptions,
): OpenApiDocument {
  const schemas: Record<string, Json> = {};
  schemas.ErrorBody = jsonSchemaOf(errorBodySchema, 'output', schemas);
  const paths: OpenApiDocument['paths'] = {};
  const tags: string[] = [];
  const operationIds = new Set<string>();

  for (const route of routes) {
    const path = openApiPath(route.path);
    if (!tags.includes(route.tag)) tags.push(route.tag);
    let operationId = operationIdOf(route.method, route.path);
    for (let n = 2; operationIds.has(operationId); n++)
      operationId = `${operationIdOf(route.method, route.path)}${n}`;
    operationIds.add(operationId);

    const operation: OpenApiOperation = {
      operationId,
      summary: route.summary,
      description: ACCESS_DESCRIPTIONS[route.access as Access],
      tags: [route.tag],
      'x-access': route.access,
      security: securityOf[route.access as Access],
      responses: responsesOf(route, schemas),
    };
    const parameters = [
      ...pathParameters(route, schemas),
      ...(route.query ? schemaParameters(route.query, 'query', schemas) : []),
    ];
    if (parameters.length > 0) operation.parameters = parameters;
    if (route.body) {
      operation.requestBody = {
        required: true,
        content: { 'application/json': { schema: jsonSchemaOf(route.body, 'input', schemas) } },
      };
    }
    paths[path] ??= {};
    paths[path][route.method] = operation;
  }

  return {
    openapi: '3.1.0',
    info: {
      title: options.title ?? 'Gateway API',
      version: options.version,
      description:
        'The HTTP API of the Gateway tool gateway. Every non-2xx answer is `{ "error": { "code", "message", "details"? } }`; unknown JSON fields are rejected; bodies over 1 MiB answer 413.',
    },
    servers: [{ url: options.baseUrl }],
    tags: tags.map((name) => ({ name })),
    paths,
    components: { schemas, securitySchemes },
  };
}

/** `/api/connections/:id` -> `/api/connections/{id}` (also drops hono's `{regex}` and `?`). */
export function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z0-9_]+)(\{[^}]*\})?\??/g, '{$1}');
}

function pathParameterNames(path: string): string[] {
  return [...path.matchAll(/:([A-Za-z0-9_]+)/g)].map((match) => match[1] as string);
}

function operationIdOf(method: string, path: string): string {
  const words = path
    .split('/')
    .filter(Boolean)
    .flatMap((segment) =>
      segment.startsWith(':')
        ? ['by', segment.slice(1).replace(/\{.*$/, '')]
        : segment.split(/[-_.]/),
    );
  return method + words.map((word) => word.charAt(0).toUpperCase() + word.slice(1)).join('');
}

function pathParameters(route: AnyRoute, schemas: Record<string, Json>): OpenApiParameter[] {
  const declared = route.params ? schemaParameters(route.params, 'path', schemas) : [];
  // OpenAPI requires every templated segment to be declared, schema or not.
  const names = pathParameterNames(route.path);
  return names.map(
    (name) =>
      declared.find((parameter) => parameter.name === name) ?? {
        name,
        in: 'path',
        required: true,
        schema: { type: 'string' },
      },
  );
}

function schemaParameters(
  schema: z.ZodType,
  where: 'path' | 'query',
  schemas: Record<string, Json>,
): OpenApiParameter[] {
  const json = jsonSchemaOf(schema, 'input', schemas);
  const properties = isJson(json.properties) ? json.properties : {};
  const required = Array.isArray(json.required) ? json.required : [];
  return Object.entries(properties).map(([name, value]) => {
    const { description, ...property } = isJson(value) ? value : {};
    return {
      name,
      in: where,
      required: where === 'path' || required.includes(name),
      ...(typeof description === 'string' ? { description } : {}),
      schema: property,
    };
  });
}

function responsesOf(
  route: AnyRoute,
  schemas: Record<string, Json>,
): OpenApiOperation['responses'] {
  const declared = new Map<number, { description: string; schema?: z.ZodType }>(
    Object.entries(route.responses).map(([status, response]) => [Number(status), response]),
  );
  // Statuses every route of a kind can answer, in case its definition leaves them out.
  // Every route refuses an unknown query parameter, and a body where it takes none, with a 400.
  const implied: number[] = [400];
  if (route.access !== 'public') implied.push(401);
  if (route.access !== 'public' && route.access !== 'user') implied.push(403);
  for (const status of implied) {
    if (!declared.has(status))
      declared.set(status, { description: defaultErrors[status] as string });
  }

  const responses: OpenApiOperation['responses'] = {};
  for (const [status, response] of [...declared].sort(([a], [b]) => a - b)) {
    if (status >= 200 && status < 300) {
      responses[String(status)] = {
        description: response.description,
        ...(response.schema
          ? {
              content: {
                'application/json': { schema: jsonSchemaOf(response.schema, 'output', schemas) },
              },
            }
          : {}),
      };
    } else {
      responses[String(status)] = {
        description: response.description,
        content: { 'application/json': { schema: { $ref: ERROR_BODY_REF } } },
      };
    }
  }
  return responses;
}

/**
 * A zod schema as JSON Schema embedded in the document: no `$schema` (the document sets the
 * dialect), and any `$defs` moved to `components.schemas` with their references rewritten, since
 * `#/$defs/...` would resolve against the document root.
 */
function jsonSchemaOf(
  schema: z.ZodType,
  io: 'input' | 'output',
  schemas: Record<string, Json>,
): Json {
  // A route schema that JSON Schema cannot express (a transform's output, a date) is documented
  // as "anything" rather than breaking the whole document.
  const {
    $schema: _dialect,
    $defs,
    ...json
  } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Json;
  if (!isJson($defs)) return json;
  const renamed = new Map<string, string>();
  for (const [name, definition] of Object.entries($defs)) {
    let target = name;
    for (
      let n = 2;
      target in schemas && JSON.stringify(schemas[target]) !== JSON.stringify(definition);
      n++
    ) {
      target = `${name}_${n}`;
    }
    renamed.set(name, target);
  }
  const rewrite = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(rewrite);
    if (!isJson(value)) return value;
    return Object.fromEntries(
      Object.entries(value).map(([key, child]) => {
        if (key === '$ref' && typeof child === 'string' && child.startsWith('#/$defs/')) {
          const name = child.slice('#/$defs/'.length);
          return [key, `#/components/schemas/${renamed.get(name) ?? name}`];
        }
        return [key, rewrite(child)];
      }),
    );
  };
  for (const [name, definition] of Object.entries($defs)) {
    schemas[renamed.get(name) as string] = rewrite(definition) as Json;
  }
  return rewrite(json) as Json;
}

function isJson(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
