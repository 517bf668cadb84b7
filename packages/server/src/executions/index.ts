export {
  ACTIVITY_OUTCOMES,
  type Activity,
  type ActivityOutcome,
  type HourOfActivity,
  readActivity,
  type ToolActivity,
} from './activity.js';
export { ABANDONED_ERROR, closeAbandonedExecutions } from './close-abandoned.js';
export { newExecutionId } from './execution-id.js';
export { csvCell } from './export.js';
export { type ExecutionFilters, OUTCOME_FILTERS, type OutcomeFilter } from './filters.js';
export {
  type ApprovalDecision,
  type ApprovalState,
  type ExecutionRecord,
  ExecutionRecorder,
  type ExecutionRecorderOptions,
} from './recorder.js';
export { isSensitiveKey, redactArguments } from './redact-arguments.js';
export {
  type ExecutionListItem,
  type ExecutionPage,
  findExecution,
  listExecutions,
} from './store.js';
