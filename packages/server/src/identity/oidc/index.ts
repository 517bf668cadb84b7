export {
  ID_TOKEN_ALGORITHMS,
  IdTokenError,
  type IdTokenExpectations,
  type IdTokenFailure,
  verifyIdToken,
} from './id-token.js';
export {
  createDiscovery,
  type Discovery,
  DiscoveryError,
  type DiscoveryOptions,
  type OidcMetadata,
  oidcMetadataSchema,
  sameIssuer,
} from './metadata.js';
