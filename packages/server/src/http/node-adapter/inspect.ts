/*! Forked from @hono/node-server 2.1.8 (src/request.ts, src/response.ts), MIT License,
 * Copyright (c) 2022 - present, Yusuke Wada and Hono contributors; see ./index.ts. */

/**
 * Makes `util.inspect` (and so `console.log`) show an instance of `prototype`'s class as
 * `<label> (lightweight) { ...view(instance) }`, as `@hono/node-server` shows its light objects.
 */
export function inspectAsLightweight<T extends object>(
  prototype: T,
  label: string,
  view: (self: T) => object,
): void {
  Object.defineProperty(prototype, Symbol.for('nodejs.util.inspect.custom'), {
    value: function inspect(
      this: T,
      depth: number | null,
      options: object,
      inspectFn: (value: unknown, options: object) => string,
    ) {
      return `${label} (lightweight) ${inspectFn(view(this), {
        ...options,
        depth: depth == null ? null : depth - 1,
      })}`;
    },
  });
}
