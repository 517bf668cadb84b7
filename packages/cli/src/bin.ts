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
  const code = await main(argv, createProcessIo(), process.cwd());
  // Exit explicitly, so an idle keep-alive socket or a stray timer cannot hold the terminal, but
  // only once stdout and stderr have drained (pipes are asynchronous on macOS).
  await Promise.all(
    [process.stdout, process.stderr].map(
      (stream) => new Promise<void>((resolve) => stream.write('', () => resolve())),
    ),
  );
  process.exit(code);
}
