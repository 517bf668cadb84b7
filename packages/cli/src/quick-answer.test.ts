import { describe, expect, it } from 'vitest';
import { createTestIo } from '#test/output/test-io.js';
import { createProgram } from './program.js';
import { HELP_COLUMNS, quickAnswer } from './quick-answer.js';
import { version } from './version.js';

/** The top-level help as commander prints it at `width` columns. */
function commanderHelp(width: number): string {
  let out = '';
  const io = { ...createTestIo(), stdout: { write: (text: string) => (out += text) } };
  createProgram({ io, cwd: '.' })
    .configureOutput({ getOutHelpWidth: () => width })
    .outputHelp();
  return out;
}

describe('quickAnswer', () => {
  it('answers --version and -v without commander', () => {
    expect(quickAnswer(['--version'], undefined)).toBe(`${version}\n`);
    expect(quickAnswer(['-v'], 120)).toBe(`${version}\n`);
  });

  it('prints the build-time help when it is exactly what commander would print', () => {
    expect(quickAnswer(['--help'], undefined, 'HELP')).toBe('HELP');
    expect(quickAnswer(['-h'], HELP_COLUMNS, 'HELP')).toBe('HELP');
    // A narrower terminal: commander wraps differently, so it renders the help itself.
    expect(quickAnswer(['--help'], HELP_COLUMNS - 1, 'HELP')).toBeUndefined();
  });

  it('leaves everything else to commander', () => {
    expect(quickAnswer(['--help'], undefined, undefined)).toBeUndefined();
    expect(quickAnswer(['new', '--help'], undefined, 'HELP')).toBeUndefined();
    expect(quickAnswer(['--version', 'x'], undefined, 'HELP')).toBeUndefined();
    expect(quickAnswer([], undefined, 'HELP')).toBeUndefined();
  });

  // The build renders the help once, at 80 columns (tsup.config.ts). That text is exact on any
  // terminal at least that wide only while no line of it needs wrapping.
  it('has a top-level help that reads the same at 80 columns and at 200', () => {
    const help = commanderHelp(HELP_COLUMNS);
    expect(help).toBe(commanderHelp(200));
    expect(Math.max(...help.split('\n').map((line) => line.length))).toBeLessThan(HELP_COLUMNS);
  });
});
