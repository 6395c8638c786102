import type { Lease, Store } from '../store/store.js';
import { LeaseLostError } from './errors.js';
import type { LeaseWriter } from './job.js';
import { encodeJson } from './json.js';

/** The writes a running job makes under its lease (progress, logs, idempotency records). */
export function leaseWriter(store: Store, queue: string, lease: Lease, keepLogs: number, onProgress: (value: unknown) => void): LeaseWriter {
  return {
    progress: async (value) => {
      const ok = await store.progress(queue, lease, encodeJson(value, 'progress'));
      if (!ok) throw new LeaseLostError(lease.id, 'the progress');
      onProgress(value);
    },
    log: async (line) => {
      const kept = await store.log(queue, lease, String(line), keepLogs);
      if (kept === null) throw new LeaseLostError(lease.id, 'the log line');
    },
    recalled: (key) => store.getOnce(queue, key),
    remember: (key, outcome, ttlMs) => store.setOnce(queue, key, outcome, ttlMs),
  };
}
