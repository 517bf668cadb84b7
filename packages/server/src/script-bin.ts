#!/usr/bin/env node
// The built server's entry, dist/bin.cjs (bin/gateway-server.cjs and dist/bin.js require it;
// src/bin.ts runs the sources): Node's compile cache on first, then the server's code as scripts
// (build/script-form.ts) with code caches made after the first answer, so a warm start compiles
// almost none of it (issue 37).
import { fileURLToPath } from 'node:url';
import { enableServerCompileCache } from './compile-cache.js';
import { runScripts } from './script-loader/index.js';

enableServerCompileCache();
runScripts(fileURLToPath(new URL('./bin/', import.meta.url)), 'server-main.js');
