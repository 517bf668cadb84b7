import { type RecordedRequest, type Reply, startFakeUpstream as start } from '@gateway/sdk/testing';
import { onTestFinished } from 'vitest';

export type { RecordedRequest, Reply };

/** A fake upstream for the current test, closed when the test ends. */
export const startFakeUpstream = (route: (request: RecordedRequest) => Reply | Promise<Reply>) =>
  start(route, { cleanup: onTestFinished });
