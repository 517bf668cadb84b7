import { expect } from 'vitest';
import { z } from 'zod';
import type { MatrixWorld, Variant } from './matrix-types.js';

const withId = z.object({ id: z.string() });

/** The `id` of a JSON answer. */
export const idOf = (body: unknown) => withId.parse(body).id;

/** A JSON answer as text, to look for ids in. */
export const text = (body: unknown) => JSON.stringify(body);

/** Expects `id` in a 2xx answer of the owner, an admin or the service secret. */
export const listsTarget =
  (id: string, who: readonly Variant[] = ['owner', 'admin', 'service']) =>
  (body: unknown, variant: Variant) => {
    if (who.includes(variant)) expect(text(body), `${variant} sees the target`).toContain(id);
  };

/** Stores a connection of user A (through the API, as the service secret). */
export async function createConnection(world: MatrixWorld, secret = world.secret()) {
  const body = {
    userId: world.owner.id,
    toolId: 'github',
    instanceName: world.unique('Work'),
    secret,
  };
  return { id: idOf(await world.call('POST', '/api/connections', body)), secret };
}
