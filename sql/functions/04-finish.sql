-- complete.lua (includes/complete-batch): each completion checked against its own lease token, then a claim
-- of the next jobs in the same call. A pending cancel request wins over the result (the job ends cancelled).
--   p_items: [{id, token, result, durationMs?}]
--   returns {statuses: [{status: completed|cancelled|already|lost, state?}], jobs: [job row], waitMs}
CREATE OR REPLACE FUNCTION @schema@.complete(p_queue text, p_items jsonb, p_count integer, p_worker text, p_lock_ms bigint, p_room jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  now bigint := @schema@.now_ms();
  x jsonb;
  j @schema@.jobs;
  statuses jsonb[] := '{}';  -- grow in place (jsonb `||` would copy the list per job)
  next jsonb;
  done jsonb[] := '{}';
  spec jsonb;
  specs jsonb := '{}';
BEGIN
  FOR x IN SELECT * FROM jsonb_array_elements(p_items) LOOP
    SELECT * INTO j FROM @schema@.jobs WHERE queue = p_queue AND id = x->>'id' FOR UPDATE;
    IF NOT FOUND OR j.token IS DISTINCT FROM x->>'token' THEN
      IF FOUND AND j.finished_token = x->>'token' THEN
        statuses := statuses || jsonb_build_object('status', 'already', 'state', j.state);
      ELSE
        statuses := statuses || jsonb_build_object('status', 'lost');
      END IF;
      CONTINUE;
    END IF;
    UPDATE @schema@.jobs SET result = x->>'result' WHERE queue = p_queue AND id = j.id;
    j := @schema@.leave_active(p_queue, j.id, true);
    IF j.cancel THEN
      PERFORM @schema@.cancelled(p_queue, j.id, now);
      statuses := statuses || jsonb_build_object('status', 'cancelled');
    ELSE
      PERFORM @schema@.emit(p_queue, 'completed', jsonb_build_object('jobId', j.id, 'size', octet_length(x->>'result')));
      spec := @schema@.finish_deferred(p_queue, j.id, 'completed', now);
      -- One trim per distinct retention spec, after the loop: the same rows remain as with a trim per job.
      IF spec IS NOT NULL THEN specs := specs || jsonb_build_object(spec::text, spec); END IF;
      done := done || jsonb_build_object('name', j.name, 'durationMs', x->'durationMs');
      statuses := statuses || jsonb_build_object('status', 'completed');
    END IF;
  END LOOP;
  FOR spec IN SELECT value FROM jsonb_each(specs) LOOP
    PERFORM @schema@.retain(p_queue, 'completed', (spec->>0)::integer, (spec->>1)::bigint, now);
  END LOOP;
  next := @schema@.claim(p_queue, p_count, p_worker, p_lock_ms, p_room);
  -- The counters last: every completion of the queue updates the same per-minute rows, and a row lock is held
  -- until commit, so taking them after the claim keeps concurrent completions from queueing behind this claim.
  IF cardinality(done) > 0 THEN PERFORM @schema@.metric_completed_many(p_queue, now, to_jsonb(done)); END IF;
  RETURN jsonb_build_object('statuses', to_jsonb(statuses), 'jobs', next->'jobs', 'waitMs', next->'waitMs');
END $$;

-- fail.lua: a failed attempt: retry (delayed, or waiting at once) while the engine asks for it and the deadline
-- allows, else dead-letter; a pending cancel wins.
--   p_delay: ms until the retry; 0 waiting at once; -1 dead-letter now
--   returns {status: moved|already|lost, state?, runAt?}
CREATE OR REPLACE FUNCTION @schema@.fail(p_queue text, p_id text, p_token text, p_delay bigint, p_reason text, p_message text, p_stack text, p_code text) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  now bigint := @schema@.now_ms();
  j @schema@.jobs;
  delay bigint := p_delay;
  reason text := p_reason;
BEGIN
  SELECT * INTO j FROM @schema@.jobs WHERE queue = p_queue AND id = p_id FOR UPDATE;
  IF NOT FOUND OR j.token IS DISTINCT FROM p_token THEN
    IF FOUND AND j.finished_token = p_token THEN RETURN jsonb_build_object('status', 'already', 'state', j.state, 'runAt', 0); END IF;
    RETURN jsonb_build_object('status', 'lost');
  END IF;
  j := @schema@.leave_active(p_queue, p_id, true);
  UPDATE @schema@.jobs SET err_message = p_message, err_stack = p_stack, err_code = p_code WHERE queue = p_queue AND id = p_id;
  IF j.cancel THEN
    PERFORM @schema@.cancelled(p_queue, p_id, now);
    RETURN jsonb_build_object('status', 'moved', 'state', 'cancelled', 'runAt', 0);
  END IF;
  IF delay >= 0 AND j.deadline > 0 AND now + delay > j.deadline THEN delay := -1; reason := 'deadline'; END IF;
  PERFORM @schema@.metric_failed(p_queue, now, delay, j.name);
  IF delay < 0 THEN
    PERFORM @schema@.dead_letter(p_queue, p_id, reason, p_message, p_stack, p_code, now);
    RETURN jsonb_build_object('status', 'moved', 'state', 'failed', 'runAt', 0);
  END IF;
  PERFORM @schema@.emit(p_queue, 'failed', jsonb_build_object('jobId', p_id, 'next', 'retry', 'reason', reason, 'message', left(p_message, 1024), 'delay', delay));
  IF delay = 0 THEN
    UPDATE @schema@.jobs SET run_at = now WHERE queue = p_queue AND id = p_id;
    IF @schema@.place(p_queue, p_id, @schema@.wait_score(j.priority, j.lifo), now) THEN PERFORM @schema@.wake(p_queue); END IF;
    RETURN jsonb_build_object('status', 'moved', 'state', 'waiting', 'runAt', now);
  END IF;
  UPDATE @schema@.jobs SET state = 'delayed', run_at = now + delay WHERE queue = p_queue AND id = p_id;
  PERFORM @schema@.emit(p_queue, 'delayed', jsonb_build_object('jobId', p_id, 'delay', delay, 'runAt', now + delay));
  PERFORM @schema@.announce_delayed(p_queue, delay);
  RETURN jsonb_build_object('status', 'moved', 'state', 'delayed', 'runAt', now + delay);
END $$;

-- throttle.lua: back to delayed without spending the attempt; with p_whole the queue starts nothing until then.
CREATE OR REPLACE FUNCTION @schema@.throttle(p_queue text, p_id text, p_token text, p_after bigint, p_whole boolean) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  now bigint := @schema@.now_ms();
  j @schema@.jobs;
BEGIN
  SELECT * INTO j FROM @schema@.jobs WHERE queue = p_queue AND id = p_id FOR UPDATE;
  IF NOT FOUND OR j.token IS DISTINCT FROM p_token THEN
    IF FOUND AND j.finished_token = p_token THEN RETURN jsonb_build_object('status', 'already', 'state', j.state, 'runAt', 0); END IF;
    RETURN jsonb_build_object('status', 'lost');
  END IF;
  j := @schema@.leave_active(p_queue, p_id, true);
  IF j.cancel THEN
    PERFORM @schema@.cancelled(p_queue, p_id, now);
    RETURN jsonb_build_object('status', 'moved', 'state', 'cancelled', 'runAt', 0);
  END IF;
  UPDATE @schema@.jobs SET attempt = attempt - 1, state = 'delayed', run_at = now + p_after WHERE queue = p_queue AND id = p_id;
  PERFORM @schema@.emit(p_queue, 'delayed', jsonb_build_object('jobId', p_id, 'delay', p_after, 'runAt', now + p_after));
  IF p_whole THEN UPDATE @schema@.queues SET lu = greatest(lu, now + p_after) WHERE name = p_queue; END IF;
  PERFORM @schema@.announce_delayed(p_queue, p_after);
  RETURN jsonb_build_object('status', 'moved', 'state', 'delayed', 'runAt', now + p_after);
END $$;

-- release.lua: graceful shutdown hands the job back at its place, attempt not counted.
--   returns released | cancelled | lost
CREATE OR REPLACE FUNCTION @schema@.release(p_queue text, p_id text, p_token text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  now bigint := @schema@.now_ms();
  j @schema@.jobs;
BEGIN
  SELECT * INTO j FROM @schema@.jobs WHERE queue = p_queue AND id = p_id FOR UPDATE;
  IF NOT FOUND OR j.token IS DISTINCT FROM p_token THEN RETURN 'lost'; END IF;
  j := @schema@.leave_active(p_queue, p_id, false);
  UPDATE @schema@.jobs SET attempt = attempt - 1 WHERE queue = p_queue AND id = p_id;
  IF j.cancel THEN
    PERFORM @schema@.cancelled(p_queue, p_id, now);
    RETURN 'cancelled';
  END IF;
  IF @schema@.place(p_queue, p_id, coalesce(j.ws, @schema@.wait_score(j.priority, j.lifo)), now) THEN PERFORM @schema@.wake(p_queue); END IF;
  RETURN 'released';
END $$;

-- extend.lua: renews the leases still held under their tokens, in one call for all of a worker's jobs.
--   p_leases: [{id, token}]; returns [renewed | cancel-requested | lost]
CREATE OR REPLACE FUNCTION @schema@.extend(p_queue text, p_lock_ms bigint, p_leases jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  now bigint := @schema@.now_ms();
  x jsonb;
  c boolean;
  out jsonb := '[]';
BEGIN
  FOR x IN SELECT * FROM jsonb_array_elements(p_leases) LOOP
    UPDATE @schema@.jobs SET lease_until = now + p_lock_ms
     WHERE queue = p_queue AND id = x->>'id' AND token = x->>'token' AND state = 'active' RETURNING cancel INTO c;
    out := out || jsonb_build_array(CASE WHEN NOT FOUND THEN 'lost' WHEN c THEN 'cancel-requested' ELSE 'renewed' END);
  END LOOP;
  RETURN out;
END $$;
