// What the bundled gateway-server keeps of zod's locales (tsup.config.ts): English, zod's default
// and the only one the server uses. The other 60-odd would be parsed at every start for nothing.
export { default as en } from 'zod/v4/locales/en.js';
