export { askDeclaredApproval } from './approval/declared-approval.js';
export { requireApproval } from './approval/require-approval.js';
export {
  type AuthResolverParts,
  createAuthResolver,
  UpstreamUnavailableError,
} from './auth/auth-fetch.js';
export type {
  AuthFetchInit,
  AuthResolver,
  ElicitFn,
  ElicitRequest,
  ElicitResult,
  GetTokenOptions,
  Logger,
  PluginContext,
  SampleContent,
  SampleMessage,
  SampleRequest,
  SampleResult,
  ToolCall,
} from './context/types.js';
export {
  type AskFormRequest,
  type AskFormResult,
  askForm,
  type BooleanField,
  type ChoiceField,
  type ElicitForm,
  elicitForm,
  type FormField,
  type FormOption,
  type FormValue,
  type MultiChoiceField,
  type NumberField,
  type TextField,
  type TitledChoiceField,
  type TitledMultiChoiceField,
  urlElicitationProblem,
  validateElicitRequest,
  validateFormAnswer,
} from './elicit/index.js';
export {
  ApprovalDeniedError,
  AuthRequiredError,
  formatProblem,
  GatewayError,
  PluginDefinitionError,
  type PluginProblem,
  ToolError,
  UndeclaredProviderError,
} from './errors/index.js';
export { defineAuthProviders, definePlugin, isPlugin } from './plugin/define-plugin.js';
export {
  NAMESPACE_MAX_LENGTH,
  NAMESPACE_PATTERN,
  namespaceProblems,
  toolPathsOutsideNamespace,
} from './plugin/namespace.js';
export type {
  AuthProvider,
  CredentialPlacement,
  OAuthProviderConfig,
  Plugin,
  PluginDefinition,
  ProviderId,
} from './plugin/types.js';
export {
  isOAuthEndpointUrl,
  isTitleCase,
  SIGN_IN_PROVIDER_IDS,
  validatePlugin,
} from './plugin/validate-plugin.js';
export {
  compilePatterns,
  isValidPattern,
  type PathMatcher,
  patternSchema,
  type Role,
  roleSchema,
} from './policy/index.js';
export { validateSampleRequest, validateSampleResult } from './sampling/index.js';
export { defineTool, defineToolFor } from './tool/define-tool.js';
export {
  acceptedInputKeys,
  unknownKeyIssues,
  withUnknownKeyIssues,
} from './tool/input-keys.js';
export {
  type JsonSchema,
  type JsonSchemaResult,
  jsonSchemaProblems,
  toolJsonSchema,
  unrepresentableSchemaMessage,
} from './tool/json-schema.js';
export { formatIssues, type SchemaIssue, type ValidationResult } from './tool/schema-issue.js';
export type {
  InputSchema,
  Tool,
  ToolAnnotations,
  ToolDefinition,
  ToolOutput,
} from './tool/types.js';
export { validateToolInput, validateToolOutput } from './tool/validate-call.js';
