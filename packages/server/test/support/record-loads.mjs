// Preloaded with `node --import` by the start-up test: appends the URL of every module the
// process loads (ESM and CommonJS) to the file named by GATEWAY_TEST_LOADS_FILE, one a line.
import { appendFileSync } from 'node:fs';
import { registerHooks } from 'node:module';

const file = process.env.GATEWAY_TEST_LOADS_FILE;
if (file) {
  registerHooks({
    load(url, context, next) {
      appendFileSync(file, `${url}\n`);
      return next(url, context);
    },
  });
}
