import { host } from './config/env.js';
import { connectionSettings } from './config/env-connections.js';
import { createGateway } from './gateway.js';
import { helpText } from './help.js';
import { batchedSink } from './http/logger.js';
import { openSignupWarning } from './invites/index.js';
import type { PluginCatalog } from './registry/index.js';
import { startTracing } from './tracing/index.js';

const USAGE = 'usage: gateway-server [rekey | --help]';
/** How long past the shutdown grace a stop may take (closing the database, flushing) before exit. */
const STOP_MARGIN_MS = 5000;

// The server's own entry: settings come from the environment (see docs/operations.md).
async function main(): Promise<void> {
  const [command, ...rest] = process.argv.slice(2);
  if (command === 'rekey' && rest.length === 0) return rekeyCommand();
  if ((command === '--help' || command === '-h' || command === 'help') && rest.length === 0) {
    process.stdout.write(helpText());
    return;
  }
  if (command !== undefined) {
    process.stderr.write(
      `gateway-server: unknown arguments "${process.argv.slice(2).join(' ')}"; ${USAGE}\n`,
    );
    process.exit(2);
  }
  const stopTracing = await startTracing(process.env);
  const gateway = await createGateway();
  const { url } = await gateway.start();
  // Before saying it listens: whoever waits for that line (a process manager, a test) may stop it
  // at once, and a signal that comes before its handler ends the process without a clean stop.
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    gateway.services.logger.info('stopping', { signal });
    // SIGTERM (a deploy, a supervisor) drains: the balancer moves away, calls in flight finish
    // within the grace. SIGINT (Ctrl-C) stops at once.
    const drain = signal === 'SIGTERM';
    if (drain) {
      // Whatever holds the stop, the process ends a few seconds after the grace.
      const { shutdownGraceMs } = connectionSettings(process.env);
      setTimeout(() => {
        gateway.services.logger.error('stop took longer than the grace; exiting', {
          graceMs: shutdownGraceMs,
        });
        process.exit(1);
      }, shutdownGraceMs + STOP_MARGIN_MS).unref();
    }
    (drain ? gateway.drain() : gateway.stop())
      .then(() => stopTracing?.())
      .then(
        () => process.exit(0),
        () => process.exit(1),
      );
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
  gateway.services.logger.info('gateway listening', { url });
  process.stderr.write(`Gateway listening on ${url}\n`);
  process.stderr.write(`${pluginsLine(gateway.services.plugins)}\n`);
  const warning = openSignupWarning(host(process.env), gateway.services.signup);
  if (warning !== undefined) {
    gateway.services.logger.warn('open sign-up beyond loopback', { host: host(process.env) });
    process.stderr.write(`${warning}\n`);
  }
}

/** One line naming the loaded plugins and how many tools are mounted from them. */
function pluginsLine(catalog: PluginCatalog): string {
  const plugins = catalog.plugins();
  if (plugins.length === 0) {
    return 'No plugins loaded: name them in gateway.config.ts (see docs/operations.md)';
  }
  const mounted = catalog.tools().length;
  const names = plugins.map((plugin) => plugin.id).join(', ');
  return `Plugins loaded: ${names}; ${mounted} ${mounted === 1 ? 'tool' : 'tools'} mounted`;
}

/** `gateway-server rekey`: the report on stdout, the gateway's log lines on stderr. */
async function rekeyCommand(): Promise<void> {
  const { runRekey } = await import('./rekey/index.js');
  const log = batchedSink((text) => process.stderr.write(text));
  try {
    await runRekey({ env: process.env, out: (line) => process.stdout.write(`${line}\n`), log });
  } finally {
    log.flush();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(
    `gateway-server: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});
