import packageJson from '../../package.json' with { type: 'json' };

/** The server package's version: the API version in the OpenAPI document. */
export const SERVER_VERSION: string = packageJson.version;
