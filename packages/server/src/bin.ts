#!/usr/bin/env node
import { host } from './config/env.js';
import { createGateway } from './gateway.js';
import { openSignupWarning } from './invites/index.js';

// The server's own entry: settings come from the environment (see docs/operations.md).
async function main(): Promise<void> {
  const gateway = await createGateway();
  const { url } = await gateway.start();
  gateway.services.logger.info('gateway listening', { url });
  process.stderr.write(`Gateway listening on ${url}\n`);
  const warning = openSignupWarning(host(process.env), gateway.services.signup);
  if (warning !== undefined) {
    gateway.services.logger.warn('open sign-up beyond loopback', { host: host(process.env) });
    process.stderr.write(`${warning}\n`);
  }
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
