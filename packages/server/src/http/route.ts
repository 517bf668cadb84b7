import type { Handler } from 'hono';
import { z } from 'zod';
import { Refusal } from '../errors/refusal.js';
import {
  type AuthenticatedPrincipal,
  mayActFor,
  type Principal,
  type TrustedPrincipal,
  type UserPrincipal,
} from '../identity/index.js';
import type { AppContext, AppEnv } from './app-env.js';
import { HttpError } from './errors.js';
import { readBodyText } from './request-body.js';

/**
 * Who may call a route, as documented in the API reference:
 * - `public`: anyone;
 * - `user`: any credential (a user, a service account, the service secret);
 * - `admin`: a user whose role is the admin role, and nobody else;
 * - `service`: the service secret alone;
 * - `service-or-admin`: the service secret or an admin.
 */
export type Access = 'public' | 'user' | 'admin' | 'service' | 'service-or-admin';

/** The principal a route's handler receives, by its access. */
export type PrincipalFor<A extends Access> = A extends 'public'
  ? Principal
  : A extends 'user'
    ? AuthenticatedPrincipal
    : A extends 'admin'
      ? UserPrincipal
      : A extends 'service'
        ? TrustedPrincipal
        : TrustedPrincipal | UserPrincipal;

/** One documented answer of a route. */
export interface RouteResponse {
  description: string;
  schema?: z.ZodType;
}

/** A route: its contract (validated input, documented answers) and its handler. */
export interface RouteDefinition<TBody, TQuery, TParams, TAccess extends Access = Access> {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** Hono path syntax, e.g. `/api/connections/:id`. */
  path: string;
  summary: string;
  tag: string;
  access: TAccess;
  /**
   * The route acts for the user named by the `userId` of its query or body: that user, an admin
   * or the service secret may call it; another user's id answers 403, and so does a service
   * account, which acts for nobody.
   */
  actsFor?: 'query' | 'body';
  body?: z.ZodType<TBody>;
  query?: z.ZodType<TQuery>;
  params?: z.ZodType<TParams>;
  responses: Record<number, RouteResponse>;
  handler: (
    c: AppContext,
    input: { body: TBody; query: TQuery; params: TParams; principal: PrincipalFor<TAccess> },
  ) => Response | Promise<Response>;
}

// biome-ignore lint/suspicious/noExplicitAny: a table holds routes of every input type
export type AnyRoute = RouteDefinition<any, any, any, any>;

/**
 * Declares a route. The same zod schemas validate requests and generate the OpenAPI document, so
 * the two never drift; its access and `actsFor` are checked before the handler runs, which
 * receives the request's principal typed by the access. (The return type is `NoInfer` so that a
 * route in an `AnyRoute[]` still infers its access from its own `access` field.)
 */
export function defineRoute<
  TBody = undefined,
  TQuery = undefined,
  TParams = undefined,
  TAccess extends Access = Access,
>(
  route: RouteDefinition<TBody, TQuery, TParams, TAccess>,
): NoInfer<RouteDefinition<TBody, TQuery, TParams, TAccess>> {
  return route;
}

/** Zod issues as they go into `details` of a `validation_failed` answer. */
export function issueDetails(error: z.ZodError): { path: string; message: string }[] {
  return error.issues.map((issue) => ({
    path: issue.path.map(String).join('.'),
    message: issue.message,
  }));
}

/** Paths of every string holding U+0000, which PostgreSQL text cannot store. */
function nulPaths(value: unknown, path: string[] = [], depth = 0): string[] {
  if (typeof value === 'string') return value.includes('\u0000') ? [path.join('.')] : [];
  if (depth > 64 || value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, item]) => [
    ...(key.includes('\u0000') ? [[...path, key].join('.')] : []),
    ...nulPaths(item, [...path, key], depth + 1),
  ]);
}

function parseWith<T>(schema: z.ZodType<T>, value: unknown, where: string): T {
  // Refused on every database alike, so SQLite and PostgreSQL answer the same.
  const nul = nulPaths(value);
  if (nul.length > 0) {
    throw new HttpError(
      'validation_failed',
      `Invalid ${where}`,
      nul.map((path) => ({ path, message: 'must not contain the NUL character (U+0000)' })),
    );
  }
  const result = schema.safeParse(value);
  if (!result.success) {
    throw new HttpError('validation_failed', `Invalid ${where}`, issueDetails(result.error));
  }
  return result.data;
}

async function readJsonBody(c: AppContext): Promise<unknown> {
  const text = await readBodyText(c);
  if (text.trim() === '') return undefined;
  const type = c.req.header('content-type') ?? '';
  if (!/^application\/([\w.+-]+\+)?json\b/i.test(type)) {
    throw new HttpError('bad_request', 'Send the body as JSON with Content-Type: application/json');
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new HttpError('bad_request', 'The body is not valid JSON');
  }
}

/** Single values as strings, repeated keys as arrays (which then fail a string schema). */
function readQuery(c: AppContext): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  for (const [key, values] of Object.entries(c.req.queries())) {
    query[key] = values.length === 1 ? (values[0] as string) : values;
  }
  return query;
}

const signIn =
  'Sign in, or send Authorization: Bearer <token> (a CLI token, service account key or the service secret)';

/**
 * Checks the principal against the route's declared access before anything else, so a caller
 * without the right to use a route learns nothing from validating input against it (401/403
 * before 400).
 */
function checkAccess(principal: Principal, access: Access): void {
  if (access === 'public') return;
  if (principal.kind === 'anonymous') throw new HttpError('unauthorized', signIn);
  const admin = principal.kind === 'user' && principal.isAdmin;
  const trusted = principal.kind === 'trusted';
  if (access === 'service' && !trusted) {
    throw new HttpError(
      'forbidden',
      'Only a trusted server holding SERVICE_API_SECRET may call this route',
    );
  }
  if (access === 'admin' && !admin) {
    throw new HttpError(
      'forbidden',
      trusted
        ? 'Only an admin user may do this (sign in, or use an admin CLI token): the service secret acts for no user'
        : 'Only an admin may do this',
    );
  }
  if (access === 'service-or-admin' && !admin && !trusted) {
    throw new HttpError('forbidden', 'Only an admin may do this');
  }
}

/** Checks the principal may act for the `userId` of the route's input (`actsFor`). */
function checkActsFor(principal: Principal, input: unknown): void {
  const userId =
    typeof input === 'object' && input !== null && 'userId' in input ? input.userId : undefined;
  if (typeof userId !== 'string' || mayActFor(principal, userId)) return;
  if (principal.kind === 'service_account') {
    throw new HttpError(
      'forbidden',
      'Service accounts may only call tools; this route acts for a user',
    );
  }
  throw new HttpError('forbidden', 'You may only act for your own user id');
}

/** The empty query schema, rejecting unknown parameters like every other schema. */
export const noQuery = z.object({}).strict();

/**
 * A route that declares no body takes none: a body it would silently ignore is most likely a
 * caller's mistake (a DELETE sent with the fields of a create), so it is refused, not dropped.
 * Whitespace alone counts as no body, as it does for routes that take one, and so does an empty
 * JSON object: many HTTP client wrappers send `{}` on every POST, and it carries no field that
 * could be ignored (issue 18).
 */
async function refuseBody(c: AppContext, route: AnyRoute): Promise<void> {
  const text = await readBodyText(c);
  if (text.trim() !== '' && !isEmptyJsonObject(text)) {
    throw new HttpError(
      'bad_request',
      `${route.method.toUpperCase()} ${route.path} takes no body; send the request without one`,
    );
  }
}

function isEmptyJsonObject(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return (
      typeof value === 'object' &&
      value !== null &&
      !Array.isArray(value) &&
      Object.keys(value).length === 0
    );
  } catch {
    return false;
  }
}

/** `GET /api/connections`: a route's method and path, as the lazily mounted list names it. */
export function routeKey(route: Pick<AnyRoute, 'method' | 'path'>): string {
  return `${route.method.toUpperCase()} ${route.path}`;
}

/**
 * The Hono handler that serves `route`: access first, then each request's input against the
 * route's schemas. A route without a query schema accepts no query parameter and one without a
 * body schema no body, so an unknown parameter or field is refused on every route alike
 * (docs/api.md).
 */
export function routeHandler(route: AnyRoute): Handler<AppEnv> {
  return async (c) => {
    const principal = c.get('principal');
    checkAccess(principal, route.access);
    const params = route.params
      ? parseWith(route.params, c.req.param(), 'path parameters')
      : undefined;
    const query = parseWith(route.query ?? noQuery, readQuery(c), 'query');
    let body: unknown;
    if (route.body) {
      const raw = await readJsonBody(c);
      if (raw === undefined) throw new HttpError('bad_request', 'This route needs a JSON body');
      body = parseWith(route.body, raw, 'body');
    } else {
      await refuseBody(c, route);
    }
    if (route.actsFor !== undefined) {
      checkActsFor(principal, route.actsFor === 'body' ? body : query);
    }
    try {
      return await route.handler(c, {
        body,
        query: route.query ? query : undefined,
        params,
        principal,
      });
    } catch (error) {
      throw httpErrorOf(error) ?? error;
    }
  };
}

/**
 * The HTTP error an error answers as, when it is one the caller may see: an {@link HttpError} as
 * it is, a service's {@link Refusal} as the error of the same code, message and details, its
 * hints as `Retry-After` and `WWW-Authenticate` (the one place domain errors become HTTP
 * answers). `undefined` for anything else: a bug, answered as a plain 500 by the app's error
 * handler.
 *
 * @example
 * const answer = httpErrorOf(error);
 * if (answer === undefined) throw error;
 */
export function httpErrorOf(error: unknown): HttpError | undefined {
  if (error instanceof HttpError) return error;
  if (Refusal.isInstance(error)) {
    return new HttpError(error.code, error.message, error.details, refusalHeaders(error));
  }
  return undefined;
}

/** A refusal's hints as the headers that carry them over HTTP; undefined when it has none. */
function refusalHeaders({ hints }: Refusal): Record<string, string> | undefined {
  if (hints === undefined) return undefined;
  const headers: Record<string, string> = {};
  if (hints.retryAfter !== undefined) headers['Retry-After'] = String(hints.retryAfter);
  if (hints.challenge !== undefined) headers['WWW-Authenticate'] = hints.challenge;
  return headers;
}
