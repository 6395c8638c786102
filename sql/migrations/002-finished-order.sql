-- Migration 2: the finished-jobs index in retention's own order (finished_at, then id), so the count trim
-- (includes retain: the rows past the newest N) walks the index backwards instead of sorting every finished job.
DROP INDEX @schema@.jobs_finished;
CREATE INDEX jobs_finished ON @schema@.jobs (queue, state, finished_at, id) WHERE state IN ('completed', 'failed', 'cancelled');
