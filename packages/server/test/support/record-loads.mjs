// Preloaded with `node --import` by the start-up test: appends the URL of every module the
// process loads (ESM and CommonJS) to the file named by GATEWAY_TEST_LOADS_FILE, one a line;
// and, when its first HTTP answer has gone out, Node's own built-in modules loaded by then
// (`process.moduleLoadList`, which no hook sees) to GATEWAY_TEST_BUILTINS_FILE, with the files
// CommonJS had loaded by then (its cache: JavaScript and native addons), each as `Module <path>`,
// and the names of the process's threads then (Linux), each as `Thread <name>`.
import { subscribe } from 'node:diagnostics_channel';
import { createRequire, registerHooks } from 'node:module';

// Required, not imported: the ES module facade of `node:fs` would load `node:fs/promises`, which the
// start-up test checks the server itself does not load before its first answer.
const require = createRequire(import.meta.url);
const { appendFileSync, readdirSync, readFileSync, writeFileSync } = require('node:fs');

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
    const modules = Object.keys(require.cache).map((path) => `Module ${path}`);
    const threads = threadNames().map((name) => `Thread ${name}`);
    const lines = [...process.moduleLoadList, ...modules, ...threads];
    writeFileSync(builtinsFile, `${lines.join('\n')}\n`);
  });
}

/** The names of this process's threads (`/proc/self/task/<id>/comm`); none where there is no /proc. */
function threadNames() {
  try {
    return readdirSync('/proc/self/task').map((task) =>
      readFileSync(`/proc/self/task/${task}/comm`, 'utf8').trim(),
    );
  } catch {
    return [];
  }
}
