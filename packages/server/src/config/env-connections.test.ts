import { describe, expect, it } from 'vitest';
import { connectionSettings } from './env-connections.js';

describe('connection and stop settings', () => {
  it('reads each variable, with the notice never longer than the grace', () => {
    const settings = connectionSettings({
      GATEWAY_SHUTDOWN_GRACE_MS: '2000',
      GATEWAY_SHUTDOWN_NOTICE_MS: '5000',
      GATEWAY_REQUEST_HEAD_TIMEOUT_MS: '1500',
      GATEWAY_KEEP_ALIVE_TIMEOUT_MS: '700',
      GATEWAY_MAX_CONNECTIONS_PER_CLIENT: '9',
      GATEWAY_MAX_CONNECTIONS: '90',
    });
    expect(settings).toEqual({
      shutdownGraceMs: 2000,
      shutdownNoticeMs: 2000,
      requestHeadTimeoutMs: 1500,
      keepAliveTimeoutMs: 700,
      maxConnectionsPerClient: 9,
      maxConnections: 90,
    });
    expect(connectionSettings({})).toMatchObject({
      shutdownGraceMs: 25_000,
      shutdownNoticeMs: 3000,
      requestHeadTimeoutMs: 10_000,
      keepAliveTimeoutMs: 5000,
      maxConnectionsPerClient: 128,
    });
  });

  it('refuses anything but a whole number in range, naming the variable', () => {
    for (const [name, raw] of [
      ['GATEWAY_SHUTDOWN_GRACE_MS', '-1'],
      ['GATEWAY_SHUTDOWN_GRACE_MS', '2.5'],
      ['GATEWAY_REQUEST_HEAD_TIMEOUT_MS', '50'],
      ['GATEWAY_MAX_CONNECTIONS_PER_CLIENT', '0'],
      ['GATEWAY_MAX_CONNECTIONS', 'lots'],
    ] as const) {
      expect(() => connectionSettings({ [name]: raw })).toThrow(
        new RegExp(`^${name} must be a whole number >= \\d+, got "${raw.replace('.', '\\.')}"$`),
      );
    }
  });
});
