/** For tests: a port for a server that binds it later (see scripts/free-port.mjs). */
export { freePort } from '../../../../scripts/free-port.mjs';
