export { traceRequests } from './http-spans.js';
export { type StopTracing, startTracing } from './start-tracing.js';
export { inSpan, tracer } from './tracer.js';
