/**
 * Loaded into a side's process by allocations.ts (`--import`): samples what the process's main
 * thread allocates with V8's sampling heap profiler (one sample per `ALLOC_INTERVAL` bytes on
 * average, default 4,096) between the `allocations-start` and `allocations-stop` messages on the
 * IPC channel, and sends back the profile (`{ allocations: profile }`). The samples of objects a
 * collection has freed are kept (`includeObjectsCollectedBy…`): without them the profiler drops a
 * sample when its object dies, and a call's short-lived objects, most of what it allocates, would
 * not show. Each node's `selfSize` is then V8's estimate of the bytes allocated there.
 */
import { Session } from 'node:inspector/promises';

const samplingInterval = Number(process.env.ALLOC_INTERVAL ?? 4096);
const session = new Session();
session.connect();
await session.post('HeapProfiler.enable');

process.on('message', (message) => {
  if (message === 'allocations-start') {
    void session
      .post('HeapProfiler.startSampling', {
        samplingInterval,
        includeObjectsCollectedByMinorGC: true,
        includeObjectsCollectedByMajorGC: true,
      })
      .then(() => process.send?.({ allocationsStarted: true }));
  } else if (message === 'allocations-stop') {
    void session
      .post('HeapProfiler.stopSampling')
      .then(({ profile }) => process.send?.({ allocations: profile }));
  }
});
