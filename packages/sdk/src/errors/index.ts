export { ApprovalDeniedError } from './approval-denied-error.js';
export { AuthRequiredError } from './auth-required-error.js';
export { GatewayError } from './gateway-error.js';
export {
  formatProblem,
  PluginDefinitionError,
  type PluginProblem,
} from './plugin-definition-error.js';
export { ToolError } from './tool-error.js';
export { UndeclaredProviderError } from './undeclared-provider-error.js';
