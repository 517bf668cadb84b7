import { z } from 'zod';
import { HttpError } from './errors.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Path parameters of a route addressing one stored resource by id. The id is documented as a
 * UUID but accepted as any string here: a value that is not a UUID cannot name anything stored,
 * so it answers 404 (via {@link requireUuid}) like any other unknown id, not 400.
 *
 * @example
 * defineRoute({ path: '/api/connections/:id', params: idParams, ... })
 */
export const idParams = z
  .object({
    id: z
      .string()
      .meta({ description: 'The id (a UUID); any other value answers 404', format: 'uuid' }),
  })
  .strict();

/**
 * Returns `id` when it is a UUID.
 *
 * @example
 * const connectionId = requireUuid(params.id, 'connection');
 *
 * @throws {HttpError} `not_found` ("No <what> <id>") when it is not.
 */
export function requireUuid(id: string, what: string): string {
  if (!UUID.test(id)) throw new HttpError('not_found', `No ${what} ${id}`);
  return id;
}
