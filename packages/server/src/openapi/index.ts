export {
  ACCESS_DESCRIPTIONS,
  buildOpenApiDocument,
  ERROR_BODY_REF,
  type OpenApiDocument,
  type OpenApiOperation,
  type OpenApiOptions,
  type OpenApiParameter,
  openApiPath,
} from './build-document.js';
export { DOCS_CONTENT_SECURITY_POLICY, renderApiDocs } from './render-docs.js';
export { type OpenApiRoutesOptions, openApiRoutes } from './routes.js';
export { SERVER_VERSION } from './server-version.js';
