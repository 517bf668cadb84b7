#!/usr/bin/env node
'use strict';
// The `gateway` bin: the Node version check first, in syntax an old Node parses, then the CLI.
const args = process.argv
  .slice(2)
  .map((arg) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`));
require('./node-guard.cjs').exitIfTooOld(['--', 'gateway'].concat(args).join(' '));
import('../dist/bin.js');
