import type { ExecutionRecord } from '../executions/index.js';
import type { GatewayMetrics } from './gateway-metrics.js';

/**
 * Counts a call as its record is committed (its answer about to be sent): a settled call by tool
 * and outcome, and the approval decision it carries. Records of a call still waiting count
 * nothing.
 */
export function metricsOfCall(metrics: GatewayMetrics): (record: ExecutionRecord) => void {
  return (record) => {
    if (record.outcome === undefined) return;
    metrics.toolCall(record.toolPath, record.outcome, (record.durationMs ?? 0) / 1000);
    if (record.approval !== undefined && record.approval !== 'pending') {
      metrics.approvalDecided(record.approval);
    }
  };
}
