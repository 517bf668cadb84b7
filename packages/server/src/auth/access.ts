import type { AppContext } from '../http/app-env.js';
import { HttpError } from '../http/errors.js';
import type { Caller } from './caller.js';

const signIn =
  'Sign in, or send Authorization: Bearer <token> (a CLI token, service account key or the service secret)';

/** The caller, or 401 when there is none. */
export function requireCaller(c: AppContext): Exclude<Caller, { kind: 'anonymous' }> {
  const caller = c.get('caller');
  if (caller.kind === 'anonymous') throw new HttpError('unauthorized', signIn);
  return caller;
}

/**
 * Checks the caller may act for `userId`: the user themself, an admin, or the service secret.
 * Another user's id answers 403.
 */
export function requireUserScope(c: AppContext, userId: string): void {
  const caller = requireCaller(c);
  if (caller.kind === 'service') return;
  if (caller.kind === 'user' && (caller.userId === userId || caller.isAdmin)) return;
  if (caller.kind === 'service_account') {
    throw new HttpError(
      'forbidden',
      'Service accounts may only call tools; this route acts for a user',
    );
  }
  throw new HttpError('forbidden', 'You may only act for your own user id');
}

/** Checks the caller is an admin or holds the service secret. */
export function requireAdmin(c: AppContext): void {
  const caller = requireCaller(c);
  if (caller.kind === 'service' || (caller.kind === 'user' && caller.isAdmin)) return;
  throw new HttpError('forbidden', 'Only an admin may do this');
}

/** Checks the caller holds the service secret (server-to-server routes only). */
export function requireService(c: AppContext): void {
  const caller = requireCaller(c);
  if (caller.kind !== 'service') {
    throw new HttpError(
      'forbidden',
      'Only a trusted server holding SERVICE_API_SECRET may call this route',
    );
  }
}
