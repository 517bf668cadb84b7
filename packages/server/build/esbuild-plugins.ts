// The esbuild plugins of the `gateway-server` bundle: the published build (tsup.config.ts) and the
// bundle the system tests spawn (test/support/bin-bundle.ts) are made the same way.
import { fileURLToPath } from 'node:url';
import type { Plugin as EsbuildPlugin } from 'esbuild';

/**
 * zod's namespace re-exports every locale, so a bundle carries all of them (~0.4 MB, a third of
 * zod) though only English, the default, is used: inside zod, its locales index is replaced by
 * build/zod-locales.js. Plugins keep their own zod, whole.
 */
export const englishZodLocales: EsbuildPlugin = {
  name: 'english-zod-locales',
  setup(build) {
    build.onResolve({ filter: /\/locales\/index\.js$/ }, (args) =>
      /[\\/]node_modules[\\/]zod[\\/]/.test(args.importer)
        ? { path: fileURLToPath(new URL('./zod-locales.js', import.meta.url)) }
        : undefined,
    );
  },
};

/**
 * prom-client `require`s @opentelemetry/api (for exemplars) where the gateway `import`s it, which
 * would bundle the package twice (its CommonJS and ES builds). Its `require` is pointed at the ES
 * build the gateway already carries: one copy.
 */
export const oneOpenTelemetryApi: EsbuildPlugin = {
  name: 'one-opentelemetry-api',
  setup(build) {
    build.onResolve({ filter: /^@opentelemetry\/api$/ }, async (args) => {
      if (args.kind !== 'require-call') return undefined;
      const esm = await build.resolve(args.path, {
        kind: 'import-statement',
        resolveDir: args.resolveDir,
      });
      return esm.errors.length > 0 ? undefined : { path: esm.path };
    });
  },
};

/**
 * `import ... from 'node:http'` (and http2, https) costs ~25 ms where `require` costs 3: Node
 * builds an ES module facade of every export, which evaluates the lazy ones, Node's internal
 * undici among them. In the bundle these imports become a CommonJS `require` of the built-in.
 */
export const requiredHttpBuiltins: EsbuildPlugin = {
  name: 'required-http-builtins',
  setup(build) {
    build.onResolve({ filter: /^(node:)?https?2?$/ }, (args) =>
      args.kind === 'import-statement'
        ? { path: args.path.replace(/^node:/, ''), namespace: 'required-builtin' }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'required-builtin' }, (args) => ({
      contents: `module.exports = require(${JSON.stringify(`node:${args.path}`)});`,
      loader: 'js',
    }));
  },
};
