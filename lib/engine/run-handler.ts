import type { HeldJob } from './held-job.js';
import { inConsumerSpan } from './tracing.js';
import type { Handler } from './worker-handler.js';

/**
 * Runs a held job's handler: timed (the duration goes to complete, for the
 * queue's duration metrics) and, with OpenTelemetry (unless `traced` is
 * false), inside a consumer span that continues the producer's trace.
 */
export async function runHandler<Data, Result>(queue: string, held: HeldJob<Data, Result>, handler: Handler<Data, Result>, traced: boolean): Promise<Result> {
  const { job } = held;
  const started = performance.now();
  try {
    return await inConsumerSpan(queue, { id: job.id, name: job.name, attempt: job.attempt, traceContext: held.traceContext }, () => handler(job), traced);
  } finally {
    held.ranMs = performance.now() - started;
  }
}
