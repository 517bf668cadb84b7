import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';

/** The header a request id travels in, both ways. */
export const REQUEST_ID_HEADER = 'X-Request-Id';

/** What a proxy's request id may be: short, and nothing a log reader could be fooled by. */
const WELL_FORMED = /^[A-Za-z0-9._:+=@/-]{1,128}$/;

const current = new AsyncLocalStorage<string>();

/**
 * The id of a request: the one its `X-Request-Id` names when it comes from a trusted proxy (so a
 * balancer's id follows the request through) and is well formed and at most 128 characters,
 * else a new one.
 */
export function requestIdOf(given: string | undefined, trusted: boolean): string {
  return trusted && given !== undefined && WELL_FORMED.test(given) ? given : randomUUID();
}

/** Runs `work` with `id` as the request id every log line written meanwhile carries. */
export function withRequestId<T>(id: string, work: () => T): T {
  return current.run(id, work);
}

/** The id of the request being handled, if any. */
export function currentRequestId(): string | undefined {
  return current.getStore();
}
