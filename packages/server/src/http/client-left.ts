import { NodeRequest, onClientLeft } from './node-adapter/request.js';

const noop = () => {};

/**
 * Tells `listener` once, with the reason, when the client of `request` leaves before its answer
 * finished (at once if it has left); answers the function that stops listening. For a request
 * from the network (the Node adapter's) this hears the connection's close without making the
 * request's `AbortSignal` (`onClientLeft`); for one handed over in process (`gateway.fetch()`),
 * whose signal is its caller's, it listens to that signal.
 *
 * @example
 * const stopListening = whenClientLeaves(request, (reason) => stop.stop(reason));
 * try { return await work(); } finally { stopListening(); }
 */
export function whenClientLeaves(
  request: Request,
  listener: (reason: unknown) => void,
): () => void {
  const given: unknown = request;
  if (given instanceof NodeRequest) return given[onClientLeft](listener);
  const { signal } = request;
  if (signal.aborted) {
    listener(signal.reason);
    return noop;
  }
  const left = () => listener(signal.reason);
  signal.addEventListener('abort', left, { once: true });
  return () => signal.removeEventListener('abort', left);
}
