#!/usr/bin/env node
import { quickAnswer } from './quick-answer.js';

const argv = process.argv.slice(2);
// A reader that stops early, as in `gateway new --help | head -3`, is no error of ours.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE' && error.code !== 'ERR_STREAM_DESTROYED') throw error;
});
const quick = quickAnswer(argv, process.stdout.isTTY ? process.stdout.columns : undefined);
if (quick !== undefined) {
  process.stdout.write(quick);
} else {
  // Loaded only now: commander and the command declarations are most of a short command's time.
  const [{ main }, { createProcessIo }] = await Promise.all([
    import('./main.js'),
    import('./output/io.js'),
  ]);
  const code = await main(argv, createProcessIo(), commandFolder());
  // Exit explicitly, so an idle keep-alive socket or a stray timer cannot hold the terminal, but
  // only once stdout and stderr have drained (pipes are asynchronous on macOS).
  await Promise.all(
    [process.stdout, process.stderr].map(
      (stream) => new Promise<void>((resolve) => stream.write('', () => resolve())),
    ),
  );
  process.exit(code);
}

/**
 * The folder the command acts on. `pnpm gateway` in any folder of the Gateway repository runs the
 * root's script from the sources, at the root; pnpm keeps the folder it was typed in (that
 * package's, or the folder itself outside any package) in INIT_CWD, so `pnpm gateway test` in
 * examples/weather tests the weather plugin. The published bin acts on its working directory.
 */
function commandFolder(): string {
  const fromSource = import.meta.url.endsWith('.ts');
  const { INIT_CWD, npm_lifecycle_event } = process.env;
  return fromSource && npm_lifecycle_event === 'gateway' && INIT_CWD ? INIT_CWD : process.cwd();
}
