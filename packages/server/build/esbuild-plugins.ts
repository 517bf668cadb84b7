// The esbuild plugins of the `gateway-server` bundle: the published build (tsup.config.ts) and the
// bundle the system tests spawn (test/support/bin-bundle.ts) are made the same way.
import { readFile } from 'node:fs/promises';
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

/** What better-sqlite3's `lib/binding.js` finds its native addon from: its own folder. */
const BINDING_DIRNAME = /\b__dirname\b/g;

/**
 * better-sqlite3's JavaScript (15 CommonJS files, ~10 M instructions of a start to resolve, read
 * and wrap one by one; issue 37) is bundled, while its native addon stays where the package
 * installed or compiled it: `lib/binding.js` looks for it from its own folder (`__dirname`), which
 * in the bundle is the folder of the installed package's `lib/`, resolved through the package's
 * `package.json` export. The build fails if `binding.js` no longer finds the addon that way.
 */
export const bundledBetterSqlite3: EsbuildPlugin = {
  name: 'bundled-better-sqlite3',
  setup(build) {
    build.onLoad({ filter: /[\\/]better-sqlite3[\\/]lib[\\/]binding\.js$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      if (source.match(BINDING_DIRNAME)?.length !== 3) {
        throw new Error(
          `better-sqlite3's ${args.path} no longer finds its addon from __dirname three times: review bundledBetterSqlite3`,
        );
      }
      const libFolder =
        "require('node:path').join(require('node:path').dirname(require.resolve('better-sqlite3/package.json')), 'lib')";
      return {
        contents: `const betterSqlite3Lib = ${libFolder};\n${source.replace(BINDING_DIRNAME, 'betterSqlite3Lib')}`,
        loader: 'js',
      };
    });
  },
};
