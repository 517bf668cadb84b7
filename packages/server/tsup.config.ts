import { rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'tsup';
import { ownVersionOnly } from '../../scripts/own-version-only.mjs';
import { writeCommonJsEntry } from './build/commonjs-entry.js';
import {
  bundledBetterSqlite3,
  englishZodLocales,
  oneOpenTelemetryApi,
  requiredHttpBuiltins,
} from './build/esbuild-plugins.js';
import { writeScriptForm } from './build/script-form.js';

/** The package's package.json is bundled for its version only (SERVER_VERSION). */
const versionOnly = ownVersionOnly(fileURLToPath(new URL('.', import.meta.url)));
/** The server's ES chunks, on their way to dist/bin/ as scripts; not published. */
const ES_CHUNKS = 'dist/.bin-es';

// The build script empties dist/ first: the builds below write into it side by side.
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
  // of its own. Left as imports: native addons (pg; better-sqlite3's JavaScript is bundled, its
  // addon found where the package is installed), tsx (it loads the config
  // file by path) and OpenTelemetry's SDK packages (loaded only with OTEL_EXPORTER_OTLP_ENDPOINT;
  // the API they register with is shared through a global, whichever copy sets it).
  // Built as ES chunks, then written again as classic scripts into dist/bin/, which is all the
  // package carries of them (build/script-form.ts, issue 37).
  {
    entry: { 'server-main': 'src/server-main.ts' },
    outDir: ES_CHUNKS,
    format: ['esm'],
    target: 'node22',
    platform: 'node',
    noExternal: [/^(?!pg$|tsx(\/|$)|@opentelemetry\/(?!api$))/],
    // Keep `node:` on built-ins, so they reach the plugins below instead of tsup's own rewrite.
    removeNodeProtocol: false,
    esbuildPlugins: [
      bundledBetterSqlite3,
      englishZodLocales,
      oneOpenTelemetryApi,
      requiredHttpBuiltins,
      versionOnly,
    ],
    // A quarter less to read at each start (~8% less CPU to the first answer). Names are kept,
    // so a logged stack still says which function failed.
    esbuildOptions(options) {
      options.minifyWhitespace = true;
      options.minifySyntax = true;
    },
    // No `require` banner: a script's wrapper passes one.
    async onSuccess() {
      await writeScriptForm(ES_CHUNKS, 'dist/bin');
      await rm(ES_CHUNKS, { recursive: true, force: true });
    },
  },
  // dist/bin.js: the entry for `node dist/bin.js` (the Docker image, the systemd unit), which
  // requires dist/bin.cjs: Node's compile cache on, then the scripts of dist/bin/ through their
  // loader, as CommonJS, which the npm bin requires too (build/commonjs-entry.ts).
  {
    entry: { bin: 'src/script-bin-module.ts' },
    format: ['esm'],
    target: 'node22',
    platform: 'node',
    splitting: false,
    async onSuccess() {
      await writeCommonJsEntry('src/script-bin.ts', 'dist/bin.cjs');
    },
  },
]);
