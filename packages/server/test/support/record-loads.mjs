// Preloaded with `node --import` by the start-up test: appends the URL of every module the
// process loads (ESM and CommonJS) to the file named by GATEWAY_TEST_LOADS_FILE, one a line;
// and, when its first HTTP answer has gone out, Node's own built-in modules loaded by then
// (`process.moduleLoadList`, which no hook sees) to GATEWAY_TEST_BUILTINS_FILE.
import { subscribe } from 'node:diagnostics_channel';
import { createRequire, registerHooks } from 'node:module';

// Required, not imported: the ES module facade of `node:fs` would load `node:fs/promises`, which the
// start-up test checks the server itself does not load before its first answer.
const { appendFileSync, writeFileSync } = createRequire(import.meta.url)('node:fs');

const file = process.env.GATEWAY_TEST_LOADS_FILE;
if (file) {
  registerHooks({
    load(url, context, next) {
      appendFileSync(file, `${url}\n`);
      return next(url, context);
    },
  });
}

const builtinsFile = process.env.GATEWAY_TEST_BUILTINS_FILE;
if (builtinsFile) {
  let written = false;
  subscribe('http.server.response.finish', () => {
    if (written) return;
    written = true;
    writeFileSync(builtinsFile, `${process.moduleLoadList.join('\n')}\n`);
  });
}
