#!/usr/bin/env node
// dist/bin.js, the built server's entry as operators name it (`node dist/bin.js`: the Docker
// image, the systemd unit): it requires dist/bin.cjs (src/script-bin.ts), as the npm bin does,
// so the server starts the same way whichever is run.
import { createRequire } from 'node:module';

createRequire(import.meta.url)('./bin.cjs');
