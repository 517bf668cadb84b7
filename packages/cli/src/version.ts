import packageJson from '../package.json' with { type: 'json' };

/** The CLI's version. The bundler inlines it, so `gateway --version` reads no file. */
export const version: string = packageJson.version;
