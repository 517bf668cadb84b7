#!/usr/bin/env node
import { createGateway } from './gateway.js';

// The server's own entry: settings come from the environment (see docs/operations.md).
async function main(): Promise<void> {
  const gateway = await createGateway();
  const { url } = await gateway.start();
  gateway.services.logger.info('gateway listening', { url });
  process.stderr.write(`Gateway listening on ${url}\n`);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    gateway.services.logger.info('stopping', { signal });
    gateway.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
}

main().catch((error: unknown) => {
  process.stderr.write(
    `gateway-server: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});
