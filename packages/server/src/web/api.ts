import type { Hono } from 'hono';
import type { z } from 'zod';
import type { AppContext, AppEnv } from '../http/app-env.js';
import { actingAs, type Principal } from '../identity/index.js';

/** An API answer that was not a success, as the page shows it. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;

  constructor(status: number, code: string, message: string) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
  }
}

/** The web app's view of the JSON API, acting as the browser's signed-in user. */
export interface ApiClient {
  /**
   * GETs `path` and parses the answer with `schema`.
   *
   * @throws ApiError when the API answers with an error.
   */
  get<T>(path: string, schema: z.ZodType<T>): Promise<T>;
  /**
   * Sends a change and parses the answer with `schema`.
   *
   * @throws ApiError when the API answers with an error.
   */
  send<T>(
    method: 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    path: string,
    body: unknown,
    schema: z.ZodType<T>,
  ): Promise<T>;
}

/**
 * Pages and form posts go through the same JSON API as every other client, in process, acting
 * for the viewer's principal ({@link actingAs}): access rules, validation and error messages are
 * the API's own and are written once.
 *
 * @example
 * const api = apiFor(app, c, viewer.principal);
 * const { roles } = await api.get('/api/policy/roles', roleListSchema);
 */
export function apiFor(app: Hono<AppEnv>, c: AppContext, principal: Principal): ApiClient {
  const call = async (method: string, path: string, body?: unknown): Promise<unknown> => {
    const headers = new Headers({ accept: 'application/json' });
    if (body !== undefined) headers.set('content-type', 'application/json');
    const response = await app.fetch(
      new Request(new URL(path, c.req.url), {
        method,
        headers,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
      actingAs(principal),
    );
    const text = await response.text();
    let json: unknown;
    try {
      json = text === '' ? undefined : JSON.parse(text);
    } catch {
      json = undefined;
    }
    if (!response.ok) throw toApiError(response.status, json);
    return json;
  };
  const parse = <T>(schema: z.ZodType<T>, value: unknown): T => {
    const parsed = schema.safeParse(value);
    if (!parsed.success)
      throw new ApiError(500, 'internal', 'The API answered in an unexpected shape');
    return parsed.data;
  };
  return {
    get: async (path, schema) => parse(schema, await call('GET', path)),
    send: async (method, path, body, schema) => parse(schema, await call(method, path, body)),
  };
}

function toApiError(status: number, json: unknown): ApiError {
  if (typeof json === 'object' && json !== null && 'error' in json) {
    const { error } = json;
    if (typeof error === 'object' && error !== null) {
      const code = 'code' in error && typeof error.code === 'string' ? error.code : 'internal';
      let message = 'message' in error && typeof error.message === 'string' ? error.message : '';
      // Validation details say which field; the page shows the first one.
      if ('details' in error && Array.isArray(error.details)) {
        const first: unknown = error.details[0];
        if (typeof first === 'object' && first !== null && 'message' in first) {
          const path = 'path' in first && typeof first.path === 'string' ? first.path : '';
          message = `${message}: ${path === '' ? '' : `${path}: `}${String(first.message)}`;
        }
      }
      return new ApiError(status, code, message || `The request failed (${status})`);
    }
  }
  return new ApiError(status, 'internal', `The request failed (${status})`);
}

/** `path` with `params` as its query string (undefined values left out). */
export function withQuery(path: string, params: Record<string, string | undefined>): string {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined) query.set(key, value);
  const text = query.toString();
  return text === '' ? path : `${path}?${text}`;
}
