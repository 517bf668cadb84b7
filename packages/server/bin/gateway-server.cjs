#!/usr/bin/env node
'use strict';
// The `gateway-server` bin: the Node version check first, in syntax an old Node parses (the
// bundle itself would die with a SyntaxError stack there), then the server.
const guard = require('@gateway/sdk/node-guard');
guard.exitIfTooOld(
  ['-p', '@gateway/server', '--', 'gateway-server']
    .concat(process.argv.slice(2).map(guard.shellWord))
    .join(' '),
);
// Required, not imported: Node's ES module loader has nothing to do before the first answer.
require('../dist/bin.cjs');
