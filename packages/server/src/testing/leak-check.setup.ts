/**
 * Vitest setup file: after each test file, greps every log line its test gateways wrote for every
 * secret and token they sent or handed out (see `known-secrets.ts`). One found fails the file.
 * Listed in the root `vitest.config.ts` `setupFiles`.
 */
import { afterAll } from 'vitest';
import {
  capturedLogLines,
  describeLeaks,
  findLeaks,
  forgetSecretsAndLogs,
} from './known-secrets.js';

afterAll(() => {
  const leaks = findLeaks(capturedLogLines());
  forgetSecretsAndLogs();
  if (leaks.length > 0) {
    throw new Error(
      `${leaks.length} secret(s) or token(s) appear in the logs of this file's test gateways:\n${describeLeaks(leaks)}`,
    );
  }
});
