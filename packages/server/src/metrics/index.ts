export { GatewayMetrics, type MetricsSources } from './gateway-metrics.js';
export { mountMetrics } from './routes.js';
export { metricsOfCall } from './sources.js';
