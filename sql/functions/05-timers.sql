-- promote.lua: due delayed jobs to waiting, in due order; also trims the queue's event stream to its length.
--   returns {moved, nextDueIn (null: nothing delayed)}
CREATE OR REPLACE FUNCTION @schema@.promote(p_queue text, p_limit integer) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  now bigint := @schema@.now_ms();
  j @schema@.jobs;
  moved integer := 0;
  claimable boolean := false;
  next_at bigint;
  keep integer;
  sched jsonb;
BEGIN
  -- Due schedulers move on first: missed policy applied, next tick armed (includes/schedulers).
  sched := @schema@.sched_advance(p_queue, now);
  IF (sched->>'claimable')::integer > 0 THEN claimable := true; END IF;
  FOR j IN SELECT * FROM @schema@.jobs WHERE queue = p_queue AND state = 'delayed' AND run_at <= now
              AND (hold_until IS NULL OR hold_until <= now)
            ORDER BY run_at LIMIT p_limit FOR UPDATE SKIP LOCKED LOOP
    IF @schema@.place(p_queue, j.id, @schema@.wait_score(j.priority, j.lifo), now) THEN claimable := true; END IF;
    moved := moved + 1;
  END LOOP;
  IF claimable THEN PERFORM @schema@.wake(p_queue); END IF;
  SELECT min(greatest(run_at, coalesce(hold_until, 0))) INTO next_at FROM @schema@.jobs WHERE queue = p_queue AND state = 'delayed';
  SELECT coalesce(ev, 10000) INTO keep FROM @schema@.queues WHERE name = p_queue;
  IF keep IS NOT NULL AND keep > 0 THEN PERFORM @schema@.trim_events(p_queue, keep); END IF;
  DELETE FROM @schema@.metrics WHERE queue = p_queue AND minute < now / 60000 - 62;
  RETURN jsonb_build_object('moved', moved, 'nextDueIn', CASE WHEN next_at IS NULL THEN NULL ELSE greatest(0, next_at - now) END,
                            'refill', sched->'refill');
END $$;

-- reap.lua: expired leases taken back: re-delivered with a stall counted (attempt not spent), dead-lettered
-- past p_max_stalled (reason stalled), or cancelled when a cancel was requested; the old holder hears it lost.
--   returns [{id, state}]
CREATE OR REPLACE FUNCTION @schema@.reap(p_queue text, p_max_stalled integer, p_limit integer) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  now bigint := @schema@.now_ms();
  j @schema@.jobs;
  out jsonb := '[]';
  requeued boolean := false;
BEGIN
  FOR j IN SELECT * FROM @schema@.jobs WHERE queue = p_queue AND state = 'active' AND lease_until <= now
            ORDER BY lease_until LIMIT p_limit FOR UPDATE SKIP LOCKED LOOP
    IF j.token IS NOT NULL THEN PERFORM @schema@.announce_owner('lost', p_queue, j.id, j.token); END IF;
    j := @schema@.leave_active(p_queue, j.id, false);
    IF j.cancel THEN
      PERFORM @schema@.cancelled(p_queue, j.id, now);
      out := out || jsonb_build_array(jsonb_build_object('id', j.id, 'state', 'cancelled'));
      CONTINUE;
    END IF;
    UPDATE @schema@.jobs SET stalled = stalled + 1, attempt = attempt - 1 WHERE queue = p_queue AND id = j.id RETURNING * INTO j;
    PERFORM @schema@.emit(p_queue, 'stalled', jsonb_build_object('jobId', j.id, 'next', CASE WHEN j.stalled > p_max_stalled THEN 'dead' ELSE 'retry' END));
    IF j.stalled > p_max_stalled THEN
      PERFORM @schema@.dead_letter(p_queue, j.id, 'stalled',
        format('job stalled more than maxStalledCount (%s) times: its worker died or blocked past the lease', p_max_stalled), '', 'StalledError', now);
      out := out || jsonb_build_array(jsonb_build_object('id', j.id, 'state', 'failed'));
      PERFORM @schema@.metric_reaped(p_queue, now, 'failed', j.name);
    ELSE
      PERFORM @schema@.metric_reaped(p_queue, now, 'waiting', j.name);
      IF @schema@.place(p_queue, j.id, coalesce(j.ws, @schema@.wait_score(j.priority, j.lifo)), now) THEN requeued := true; END IF;
      out := out || jsonb_build_array(jsonb_build_object('id', j.id, 'state', 'waiting'));
    END IF;
  END LOOP;
  IF requeued THEN PERFORM @schema@.wake(p_queue); END IF;
  RETURN out;
END $$;
