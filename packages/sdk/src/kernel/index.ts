/**
 * `@gateway/sdk/kernel`: the checks and helpers the gateway and the `gateway` CLI share with the
 * sdk, so that `runTool` in a plugin's tests, `gateway test` and the server decide alike (input
 * and output validation, JSON Schema conversion, elicitation and sampling checks, role patterns,
 * namespaces, the credential resolver behind `ctx.auth`) and the one `escapeHtml`. Not the plugin
 * author's API (that is the root entry, `@gateway/sdk`); these may change with the gateway.
 */
export { askDeclaredApproval } from '../approval/declared-approval.js';
export { type AuthResolverParts, createAuthResolver } from '../auth/auth-fetch.js';
export {
  type ElicitForm,
  elicitForm,
  urlElicitationProblem,
  validateElicitRequest,
  validateFormAnswer,
} from '../elicit/index.js';
export { escapeHtml } from '../html/escape-html.js';
export {
  NAMESPACE_MAX_LENGTH,
  NAMESPACE_PATTERN,
  toolPathsOutsideNamespace,
} from '../plugin/namespace.js';
export {
  isOAuthEndpointUrl,
  isTitleCase,
  SIGN_IN_PROVIDER_IDS,
} from '../plugin/validate-plugin.js';
export {
  compilePatterns,
  isValidPattern,
  type PathMatcher,
  patternSchema,
  type Role,
  roleSchema,
} from '../policy/index.js';
export { validateSampleRequest, validateSampleResult } from '../sampling/index.js';
export {
  acceptedInputKeys,
  unknownKeyIssues,
  withUnknownKeyIssues,
} from '../tool/input-keys.js';
export {
  type JsonSchema,
  type JsonSchemaResult,
  jsonSchemaProblems,
  toolJsonSchema,
  unrepresentableSchemaMessage,
} from '../tool/json-schema.js';
export { formatIssues, type SchemaIssue, type ValidationResult } from '../tool/schema-issue.js';
export { validateToolInput, validateToolOutput } from '../tool/validate-call.js';
