/**
 * What runs a call's time limit: `set` arms a timer that calls `expire` after `ms` and answers a
 * handle, `clear` disarms it by that handle. A handle object, not a closure per call, so the
 * default costs a call what `setTimeout` alone did; the tests give the gateway one they fire.
 */
export interface CallTimer {
  set(expire: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

/** A `setTimeout` that keeps nothing alive. */
export const realCallTimer: CallTimer = {
  set(expire, ms) {
    const timer = setTimeout(expire, ms);
    timer.unref?.();
    return timer;
  },
  clear(handle) {
    clearTimeout(handle as ReturnType<typeof setTimeout>);
  },
};
