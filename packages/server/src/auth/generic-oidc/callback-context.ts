import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Why the gateway refused a sign-in or connect callback, beyond better-auth's own codes. These
 * reach the gateway's pages as `?error=<code>` (see `web/pages/sign-in.ts`).
 */
export type CallbackFailure =
  | 'issuer_missing'
  | 'issuer_mismatch'
  | 'id_token_invalid'
  | 'provider_unavailable';

/** One request to better-auth: its query (the callback's `iss`) and what the gateway refused. */
export interface CallbackContext {
  readonly query: URLSearchParams;
  failure?: CallbackFailure;
}

const storage = new AsyncLocalStorage<CallbackContext>();

/**
 * Runs `handle` (better-auth answering `url`) with a context the generic providers read the
 * callback's `iss` from and record a refusal in; a refusal replaces the `error` better-auth's
 * redirect names (`invalid_code`, `unable_to_get_user_info`) with the gateway's reason.
 *
 * @example
 * return withCallbackContext(new URL(request.url), () => auth.handler(request));
 */
export async function withCallbackContext(
  url: URL,
  handle: () => Promise<Response>,
): Promise<Response> {
  const context: CallbackContext = { query: url.searchParams };
  const response = await storage.run(context, handle);
  return context.failure === undefined ? response : withReason(response, context.failure);
}

/** The context of the request being answered, if it came through {@link withCallbackContext}. */
export function currentCallback(): CallbackContext | undefined {
  return storage.getStore();
}

/** Records why the callback is refused (the first reason wins). */
export function refuseCallback(failure: CallbackFailure): void {
  const context = storage.getStore();
  if (context !== undefined) context.failure ??= failure;
}

function withReason(response: Response, failure: CallbackFailure): Response {
  const location = response.headers.get('location');
  if (response.status < 300 || response.status >= 400 || location === null) return response;
  let target: URL;
  try {
    target = new URL(location);
  } catch {
    return response;
  }
  if (!target.searchParams.has('error')) return response;
  target.searchParams.set('error', failure);
  target.searchParams.delete('error_description');
  const headers = new Headers(response.headers);
  headers.set('location', target.toString());
  return new Response(response.body, { status: response.status, headers });
}
