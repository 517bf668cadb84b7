export {
  createTestContext,
  type LogLine,
  type ProgressReport,
  type TestContext,
  type TestContextOptions,
} from './create-test-context.js';
export {
  type FakeUpstream,
  type FakeUpstreamOptions,
  type RecordedRequest,
  type Reply,
  startFakeUpstream,
} from './fake-upstream.js';
export {
  type CallerResult,
  type RunToolOptions,
  type RunToolResult,
  runTool,
} from './run-tool.js';
