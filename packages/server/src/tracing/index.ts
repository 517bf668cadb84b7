export { traceRequests } from './http-spans.js';
export { type StopTracing, startTracing } from './start-tracing.js';
export { enableCallSpans, inSpan, traced, tracedNow, tracer } from './tracer.js';
