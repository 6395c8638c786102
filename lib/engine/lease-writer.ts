import type { Lease, Store } from '../store/store.js';
import { LeaseLostError, PayloadTooLargeError } from './errors.js';
import type { LeaseWriter } from './active-job.js';
import { encodeJson } from './json.js';

/** The writes a running job makes under its lease (progress, logs, idempotency records). */
export function leaseWriter(
  store: Store,
  queue: string,
  lease: Lease,
  limits: { readonly keepLogs: number; readonly maxPayloadBytes: number },
  onProgress: (value: unknown) => void,
): LeaseWriter {
  const { keepLogs, maxPayloadBytes } = limits;
  return {
    progress: async (value) => {
      const ok = await store.progress(queue, lease, encodeJson(value, 'progress'));
      if (!ok) throw new LeaseLostError(lease.id, 'the progress');
      onProgress(value);
    },
    data: async (value) => {
      const encoded = encodeJson(value, 'job.updateData data');
      // A payload this worker would refuse to run must not reach the next attempt.
      const bytes = Buffer.byteLength(encoded);
      if (bytes > maxPayloadBytes) throw new PayloadTooLargeError('job.updateData data', bytes, maxPayloadBytes);
      if (!(await store.updateData(queue, lease, encoded))) throw new LeaseLostError(lease.id, 'the data update');
      return JSON.parse(encoded) as unknown;
    },
    log: async (line) => {
      const kept = await store.log(queue, lease, String(line), keepLogs);
      if (kept === null) throw new LeaseLostError(lease.id, 'the log line');
    },
    recalled: (key) => store.getOnce(queue, key),
    remember: (key, outcome, ttlMs) => store.setOnce(queue, key, outcome, ttlMs),
  };
}
