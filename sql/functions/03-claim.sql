-- claim.lua (includes/claim-batch): waiting -> active for up to p_count jobs under fresh lease tokens
-- (`<worker>:<claims>`), through every gate: queue pause and throttle, the queue's rate window, the global
-- concurrency cap, paused names, a group's pause, cap and rate window, the worker's room per job name, and
-- deadlines (a passed one dead-letters at once). Candidates are locked FOR UPDATE SKIP LOCKED, so
-- concurrent claims never wait on each other's jobs; the queue row is locked only when a queue-wide
-- counter (rate window, global cap) must be kept exact.
--   p_room: {name: slots left} for the names the worker caps
--   returns {jobs: [job row], waitMs}
CREATE OR REPLACE FUNCTION @schema@.claim(p_queue text, p_count integer, p_worker text, p_lock_ms bigint, p_room jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  now bigint := @schema@.now_ms();
  q @schema@.queues;
  g @schema@.groups;
  j @schema@.jobs;
  out jsonb := '[]';
  n integer := p_count;
  taken integer := 0;
  room jsonb := coalesce(p_room, '{}');
  allowance integer;
  reopen bigint := 0;
  fresh boolean := false;
  free integer;
  wait_ms bigint := 0;
  g_cap integer; g_max integer; g_dur bigint; g_active integer;
  g_seen jsonb := '{}';
BEGIN
  SELECT * INTO q FROM @schema@.queues WHERE name = p_queue;
  IF NOT FOUND OR n <= 0 OR q.paused THEN RETURN jsonb_build_object('jobs', out, 'waitMs', 0); END IF;
  IF q.lu > now THEN RETURN jsonb_build_object('jobs', out, 'waitMs', q.lu - now); END IF;
  IF q.rl_max IS NOT NULL OR q.gc IS NOT NULL THEN
    SELECT * INTO q FROM @schema@.queues WHERE name = p_queue FOR UPDATE;
  END IF;
  IF q.rl_max IS NOT NULL THEN
    IF now >= q.rlw + q.rl_dur THEN allowance := q.rl_max; reopen := now + q.rl_dur; fresh := true;
    ELSE allowance := q.rl_max - q.rln; reopen := q.rlw + q.rl_dur; END IF;
    IF allowance <= 0 THEN RETURN jsonb_build_object('jobs', out, 'waitMs', reopen - now); END IF;
    n := least(n, allowance);
  END IF;
  IF q.gc IS NOT NULL THEN
    free := q.gc - (SELECT count(*) FROM @schema@.jobs WHERE queue = p_queue AND state = 'active');
    IF free <= 0 THEN RETURN jsonb_build_object('jobs', out, 'waitMs', 0); END IF;
    n := least(n, free);
  END IF;

  FOR j IN SELECT * FROM @schema@.jobs
            WHERE queue = p_queue AND state = 'waiting' AND NOT (name = ANY (q.paused_names))
            ORDER BY ws LIMIT n + 100 FOR UPDATE SKIP LOCKED LOOP
    EXIT WHEN taken >= n;
    CONTINUE WHEN room ? j.name AND (room->>j.name)::integer <= 0;
    IF j.grp IS NOT NULL THEN
      -- A group's gates, read once per claim (and counted as this claim starts its jobs).
      IF NOT g_seen ? j.grp THEN
        SELECT * INTO g FROM @schema@.groups WHERE queue = p_queue AND grp = j.grp FOR UPDATE;
        g_cap := coalesce(g.cap, q.gcap);
        g_max := coalesce(g.rl_max, q.grl_max);
        g_dur := coalesce(g.rl_dur, q.grl_dur);
        g_active := (SELECT count(*) FROM @schema@.jobs WHERE queue = p_queue AND grp = j.grp AND state = 'active');
        g_seen := jsonb_set(g_seen, ARRAY[j.grp], jsonb_build_object(
          'paused', coalesce(g.paused, false), 'left', CASE WHEN g_cap IS NULL OR g_cap <= 0 THEN 1000000 ELSE g_cap - g_active END,
          'rl', g_max IS NOT NULL,
          'allow', CASE WHEN g_max IS NULL THEN 1000000 WHEN now >= coalesce(g.rlw, 0) + g_dur THEN g_max ELSE g_max - g.rln END,
          'fresh', g_max IS NOT NULL AND now >= coalesce(g.rlw, 0) + g_dur,
          'reopen', CASE WHEN g_max IS NULL THEN 0 WHEN now >= coalesce(g.rlw, 0) + g_dur THEN now + g_dur ELSE g.rlw + g_dur END,
          'n', 0));
      END IF;
      IF (g_seen->j.grp->>'paused')::boolean OR (g_seen->j.grp->>'left')::integer <= 0 THEN CONTINUE; END IF;
      IF (g_seen->j.grp->>'allow')::integer <= 0 THEN
        wait_ms := CASE WHEN wait_ms = 0 THEN greatest(1, (g_seen->j.grp->>'reopen')::bigint - now)
                        ELSE least(wait_ms, greatest(1, (g_seen->j.grp->>'reopen')::bigint - now)) END;
        CONTINUE;
      END IF;
    END IF;
    IF j.deadline > 0 AND now > j.deadline THEN
      PERFORM @schema@.dead_letter(p_queue, j.id, 'deadline', 'deadline passed before the job could start', '', 'DeadlineExceededError', now);
      PERFORM @schema@.metric_dead(p_queue, now, j.name);
      CONTINUE;
    END IF;
    IF room ? j.name THEN room := jsonb_set(room, ARRAY[j.name], to_jsonb((room->>j.name)::integer - 1)); END IF;
    IF j.grp IS NOT NULL THEN
      g_seen := jsonb_set(g_seen, ARRAY[j.grp], (g_seen->j.grp) || jsonb_build_object(
        'left', (g_seen->j.grp->>'left')::integer - 1, 'allow', (g_seen->j.grp->>'allow')::integer - 1, 'n', (g_seen->j.grp->>'n')::integer + 1));
    END IF;
    UPDATE @schema@.jobs SET state = 'active', claims = claims + 1, attempt = attempt + 1, token = p_worker || ':' || (claims + 1),
           started_at = now, lease_until = now + p_lock_ms
     WHERE queue = p_queue AND id = j.id RETURNING * INTO j;
    PERFORM @schema@.emit(p_queue, 'active', jsonb_build_object('jobId', j.id, 'attempt', j.attempt));
    out := out || jsonb_build_array(to_jsonb(j));
    taken := taken + 1;
  END LOOP;

  -- Groups' rate windows count the starts of this claim.
  PERFORM @schema@.count_group_starts(p_queue, g_seen, now);

  IF q.rl_max IS NOT NULL THEN
    IF taken >= allowance AND wait_ms = 0 THEN wait_ms := greatest(1, reopen - now); END IF;
    IF taken > 0 THEN
      IF fresh THEN UPDATE @schema@.queues SET rlw = now, rln = taken WHERE name = p_queue;
      ELSE UPDATE @schema@.queues SET rln = rln + taken WHERE name = p_queue; END IF;
    END IF;
  END IF;
  RETURN jsonb_build_object('jobs', out, 'waitMs', wait_ms);
END $$;

CREATE OR REPLACE FUNCTION @schema@.count_group_starts(p_queue text, p_seen jsonb, p_now bigint) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  k text;
  v jsonb;
BEGIN
  FOR k, v IN SELECT * FROM jsonb_each(p_seen) LOOP
    CONTINUE WHEN NOT (v->>'rl')::boolean OR (v->>'n')::integer = 0;
    INSERT INTO @schema@.groups (queue, grp, rlw, rln) VALUES (p_queue, k, p_now, (v->>'n')::integer)
    ON CONFLICT (queue, grp) DO UPDATE
      SET rlw = CASE WHEN (v->>'fresh')::boolean THEN p_now ELSE @schema@.groups.rlw END,
          rln = CASE WHEN (v->>'fresh')::boolean THEN (v->>'n')::integer ELSE @schema@.groups.rln + (v->>'n')::integer END;
  END LOOP;
END $$;
