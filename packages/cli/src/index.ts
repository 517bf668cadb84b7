export { CliError, type CliErrorOptions, type ExitCode } from './cli-error.js';
export { type BuildOptions, runBuild } from './commands/build/index.js';
export {
  type NewOptions,
  type NewResult,
  runNew,
  type TemplateName,
  templateNames,
} from './commands/new/index.js';
export { runTest, type TestOptions, type TestReport } from './commands/test/index.js';
export { main } from './main.js';
export { createProcessIo, type Io, type OutputStream } from './output/io.js';
export type { ProcessRunner, RunProcessOptions } from './process/run-process.js';
export { createProgram, type ProgramContext } from './program.js';
export type { Choice, Prompter } from './prompts/prompter.js';
