// Moving to Spool from BullMQ: importFromBullMQ() and what its report holds.
export { importFromBullMQ, type ImportFromBullMQOptions } from './import-bullmq.js';
export { spoolIdOf as bullmqIdToSpool } from './bullmq-job.js';
export { BULL_STATES, DEFAULT_STATES } from './report.js';
export type { BullState, ImportProgress, ImportReport, JobNote, QueueReport, StateTally } from './report.js';
