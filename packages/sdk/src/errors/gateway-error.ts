const baseMarker = Symbol.for('gateway.error');

/**
 * Base class of every error the sdk defines.
 *
 * A plugin and the server may load different copies of `@gateway/sdk`, so `instanceof` can fail
 * across them. Each class carries a `Symbol.for(...)` marker instead; use the static
 * `isInstance()` of the class you expect.
 *
 * @example
 * if (ToolError.isInstance(error)) console.log(error.message);
 */
export class GatewayError extends Error {
  readonly [baseMarker] = true;

  /** Whether `error` is a GatewayError from any copy of the sdk. */
  static isInstance(error: unknown): error is GatewayError {
    return hasMarker(error, baseMarker);
  }
}

/** Whether `error` is an object carrying the marker `symbol` set to `true`. */
export function hasMarker(error: unknown, symbol: symbol): boolean {
  return (
    typeof error === 'object' &&
    error !== null &&
    symbol in error &&
    (error as Record<symbol, unknown>)[symbol] === true
  );
}
