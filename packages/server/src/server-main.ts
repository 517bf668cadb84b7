import { host } from './config/env.js';
import { connectionSettings } from './config/env-connections.js';
import { databaseUnreachableMessage } from './db/unreachable-message.js';
import { openGateway } from './gateway.js';
import { helpText } from './help.js';
import { batchedSink, createLogger, type ServerLogger } from './http/logger.js';
import { Redactor } from './http/redact.js';
import { openSignupWarning } from './invites/index.js';
import type { PluginCatalog } from './registry/index.js';
import { startTracing } from './tracing/index.js';

const USAGE = 'usage: gateway-server [rekey | --help]';
/** How long past the shutdown grace a stop may take (closing the database, flushing) before exit. */
const STOP_MARGIN_MS = 5000;

/** Environment variables whose values are secrets, by name: scrubbed from the process's lines. */
const SECRET_VARIABLE = /secret|password|token|api_key|private_key|database_url/i;

/**
 * The process's own lines on stderr (start, warnings of Node and the drivers, a refusal to start,
 * a crash), as JSON like every other log line, written at once: the last one may precede an exit.
 * Secrets given in the environment are scrubbed, as the gateway's own log does.
 */
let processLog: ServerLogger = createLogger(
  { write: (line) => process.stderr.write(line) },
  new Redactor(
    Object.entries(process.env)
      .filter(([name]) => SECRET_VARIABLE.test(name))
      .map(([, value]) => value),
  ),
);

/** A crash, as one JSON line, then the exit a crash makes (the log's last lines are flushed). */
function crash(kind: string, error: unknown): void {
  processLog.error(`gateway-server crashed: ${kind}`, {
    error: error instanceof Error ? (error.stack ?? error.message) : String(error),
  });
  process.exit(1);
}

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
  // Node prints warnings (a driver's, a deprecation) as plain text: they become JSON lines.
  process.removeAllListeners('warning');
  process.on('warning', (warning) => {
    const code = (warning as Error & { code?: unknown }).code;
    processLog.warn(warning.message, {
      warning: warning.name,
      ...(typeof code === 'string' ? { code } : {}),
    });
  });
  process.on('uncaughtException', (error) => crash('uncaught exception', error));
  process.on('unhandledRejection', (reason) => crash('unhandled rejection', reason));
  const stopTracing = await startTracing(process.env);
  const gateway = await openGateway();
  // Its redactor knows every secret the gateway was given, from options and files too.
  processLog = createLogger(
    { write: (line) => process.stderr.write(line) },
    gateway.services.redactor,
  );
  const { url, port } = await gateway.start();
  const listenHost = host(process.env);
  const address = `${listenHost.includes(':') ? `[${listenHost}]` : listenHost}:${port}`;
  // Before saying it listens: whoever waits for that line (a process manager, a test) may stop it
  // at once, and a signal that comes before its handler ends the process without a clean stop.
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    processLog.info('stopping', { signal });
    // SIGTERM (a deploy, a supervisor) drains: the balancer moves away, calls in flight finish
    // within the grace. SIGINT (Ctrl-C) stops at once.
    const drain = signal === 'SIGTERM';
    if (drain) {
      // Whatever holds the stop, the process ends a few seconds after the grace.
      const { shutdownGraceMs } = connectionSettings(process.env);
      setTimeout(() => {
        processLog.error('stop took longer than the grace; exiting', {
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
  // The address it is bound to and the base URL clients are told differ behind a proxy.
  processLog.info(`Gateway listening on ${url} (bound to ${address})`, { address, baseUrl: url });
  processLog.info(pluginsLine(gateway.services.plugins));
  const warning = openSignupWarning(listenHost, gateway.services.signup);
  if (warning !== undefined) processLog.warn(warning, { host: listenHost });
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
  // A refusal to start (a setting, the database, the port): its message, which says what to do.
  const message =
    databaseUnreachableMessage(error, process.env.DATABASE_URL) ??
    (error instanceof Error ? error.message : String(error));
  processLog.error(`gateway-server: ${message}`);
  process.exit(1);
});
