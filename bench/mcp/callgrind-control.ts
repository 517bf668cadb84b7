/** Drives a process under callgrind (instructions.ts, upstream-envelope.ts). */
import { spawnSync } from 'node:child_process';

/**
 * Runs `callgrind_control` with `args` (`-i on`, `-z`, `-d`, ...) on process `pid`; throws unless it
 * answers OK.
 */
export function control(pid: number, ...args: string[]): void {
  const done = spawnSync('callgrind_control', [...args, String(pid)], { encoding: 'utf8' });
  if (done.status !== 0 || !done.stdout.includes('OK')) {
    throw new Error(`callgrind_control ${args.join(' ')}: ${done.stdout}${done.stderr}`);
  }
}
