#!/usr/bin/env node
// The server's entry: as small as it can be, so Node's compile cache is on before anything else
// loads (a start compiles the code it cached from an earlier one instead of parsing it again).
import { enableServerCompileCache } from './compile-cache.js';

enableServerCompileCache();
await import('./server-main.js');
