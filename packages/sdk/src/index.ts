// The plugin author's API: what a plugin imports to define its tools and what its handlers
// throw, read and write. The checks the gateway and the CLI share with it are
// `@gateway/sdk/kernel`; the test helpers are `@gateway/sdk/testing`.
export { requireApproval } from './approval/require-approval.js';
export { UpstreamUnavailableError } from './auth/auth-fetch.js';
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
  type FormField,
  type FormOption,
  type FormValue,
  type MultiChoiceField,
  type NumberField,
  type TextField,
  type TitledChoiceField,
  type TitledMultiChoiceField,
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
export { namespaceProblems } from './plugin/namespace.js';
export type {
  AuthProvider,
  CredentialPlacement,
  OAuthProviderConfig,
  Plugin,
  PluginDefinition,
  ProviderId,
} from './plugin/types.js';
export { validatePlugin } from './plugin/validate-plugin.js';
export { defineTool, defineToolFor } from './tool/define-tool.js';
export type {
  InputSchema,
  Tool,
  ToolAnnotations,
  ToolDefinition,
  ToolOutput,
} from './tool/types.js';
