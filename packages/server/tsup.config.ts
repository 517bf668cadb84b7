import { fileURLToPath } from 'node:url';
import { defineConfig, type Options } from 'tsup';
import { ownVersionOnly } from '../../scripts/own-version-only.mjs';

type EsbuildPlugin = NonNullable<Options['esbuildPlugins']>[number];

/** The package's package.json is bundled for its version only (SERVER_VERSION). */
const versionOnly: EsbuildPlugin = ownVersionOnly(fileURLToPath(new URL('.', import.meta.url)));

/**
 * zod's namespace re-exports every locale, so a bundle carries all of them (~0.4 MB, a third of
 * zod) though only English, the default, is used: inside zod, its locales index is replaced by
 * build/zod-locales.js. Plugins keep their own zod, whole.
 */
const englishZodLocales: EsbuildPlugin = {
  name: 'english-zod-locales',
  setup(build) {
    build.onResolve({ filter: /\/locales\/index\.js$/ }, (args) =>
      /[\\/]node_modules[\\/]zod[\\/]/.test(args.importer)
        ? { path: fileURLToPath(new URL('./build/zod-locales.js', import.meta.url)) }
        : undefined,
    );
  },
};

/**
 * prom-client `require`s @opentelemetry/api (for exemplars) where the gateway `import`s it, which
 * would bundle the package twice (its CommonJS and ES builds). Its `require` is pointed at the ES
 * build the gateway already carries: one copy.
 */
const oneOpenTelemetryApi: EsbuildPlugin = {
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
const requiredHttpBuiltins: EsbuildPlugin = {
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

// The build script empties dist/ first: the two builds below write into it side by side.
export default defineConfig([
  // The library (`createGateway()`): its dependencies stay imports, installed beside it.
  {
    entry: { index: 'src/index.ts' },
    format: ['esm'],
    dts: { entry: { index: 'src/index.ts' }, compilerOptions: { paths: {} } },
    target: 'node22',
    platform: 'node',
    esbuildPlugins: [versionOnly],
  },
  // The `gateway-server` bin, bundled: a start reads a few chunks instead of resolving and
  // reading ~1,200 module files of its dependencies, most of the time a start took (issue 17).
  // What loads lazily (better-auth, the upstream client, OpenTelemetry's SDK) stays in chunks
  // of its own. Left as imports: native addons (better-sqlite3, pg), tsx (it loads the config
  // file by path) and OpenTelemetry's SDK packages (loaded only with OTEL_EXPORTER_OTLP_ENDPOINT;
  // the API they register with is shared through a global, whichever copy sets it).
  {
    entry: { bin: 'src/bin.ts' },
    format: ['esm'],
    target: 'node22',
    platform: 'node',
    noExternal: [/^(?!better-sqlite3$|pg$|tsx(\/|$)|@opentelemetry\/(?!api$))/],
    // Keep `node:` on built-ins, so they reach the plugins below instead of tsup's own rewrite.
    removeNodeProtocol: false,
    esbuildPlugins: [englishZodLocales, oneOpenTelemetryApi, requiredHttpBuiltins, versionOnly],
    // A quarter less to read at each start (~8% less CPU to the first answer). Names are kept,
    // so a logged stack still says which function failed.
    esbuildOptions(options) {
      options.minifyWhitespace = true;
      options.minifySyntax = true;
    },
    // CommonJS dependencies inside an ES module bundle still call `require` for Node built-ins.
    banner: {
      js: "import { createRequire as __gatewayCreateRequire } from 'node:module'; const require = __gatewayCreateRequire(import.meta.url);",
    },
  },
]);
