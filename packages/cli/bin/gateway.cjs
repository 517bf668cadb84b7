#!/usr/bin/env node
'use strict';
// The `gateway` bin: the Node version check first, in syntax an old Node parses, then the CLI.
const guard = require('@gateway/sdk/node-guard');
guard.exitIfTooOld(['--', 'gateway'].concat(process.argv.slice(2).map(guard.shellWord)).join(' '));
import('../dist/bin.js');
