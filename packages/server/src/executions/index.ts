export { ABANDONED_ERROR, closeAbandonedExecutions } from './close-abandoned.js';
export { newExecutionId } from './execution-id.js';
export {
  type ApprovalDecision,
  type ApprovalState,
  type ExecutionRecord,
  ExecutionRecorder,
  type ExecutionRecorderOptions,
} from './recorder.js';
export { isSensitiveKey, redactArguments } from './redact-arguments.js';
export { executionRoutes } from './routes.js';
export { type ExecutionListItem, type ExecutionPage, listExecutions } from './store.js';
