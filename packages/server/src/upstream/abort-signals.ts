/**
 * A signal aborted when `connection` or `request` is, for one request. Not `AbortSignal.any()`:
 * that keeps every request's signal as a dependant of the connection's, which lives as long as
 * the upstream, until a collection clears it (~270 bytes a call, and slower young-generation
 * collections, measured in stop 27). `release` drops the listeners once the request is done.
 */
export function eitherSignal(
  connection: AbortSignal,
  request: AbortSignal | undefined,
): { signal: AbortSignal; release: () => void } {
  if (request === undefined) return { signal: connection, release: () => {} };
  const both = new AbortController();
  const stop = (event: Event) => both.abort((event.target as AbortSignal).reason);
  if (connection.aborted) both.abort(connection.reason);
  else if (request.aborted) both.abort(request.reason);
  connection.addEventListener('abort', stop, { once: true });
  request.addEventListener('abort', stop, { once: true });
  return {
    signal: both.signal,
    release: () => {
      connection.removeEventListener('abort', stop);
      request.removeEventListener('abort', stop);
    },
  };
}

/** Waits `ms`, or rejects with `signal`'s reason when it aborts first. */
export function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const stop = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', stop);
      resolve();
    }, ms);
    signal.addEventListener('abort', stop, { once: true });
  });
}

/**
 * Where a request hears that it is stopped: a tool call's stop (`SourceCall.onStop`, no signal made
 * for it: issue 37) or a signal's abort ({@link stopOf}). `onStop` calls `listener` once if the
 * stop comes before the function it returns is called, at once when it came already.
 */
export interface StopSource {
  onStop(listener: (reason: unknown) => void): () => void;
}

/** `signal` as a {@link StopSource}. */
export function stopOf(signal: AbortSignal): StopSource {
  return {
    onStop(listener) {
      if (signal.aborted) {
        listener(signal.reason);
        return () => {};
      }
      const stop = () => listener(signal.reason);
      signal.addEventListener('abort', stop, { once: true });
      return () => signal.removeEventListener('abort', stop);
    },
  };
}

/** A signal aborted when `source` is stopped, for a wait that needs one; `off` stops listening. */
export function signalOf(source: StopSource): { signal: AbortSignal; off: () => void } {
  const controller = new AbortController();
  const off = source.onStop((reason) => controller.abort(reason));
  return { signal: controller.signal, off };
}
