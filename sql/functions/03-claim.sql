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
  j @schema@.jobs;
  out jsonb := '[]';
  n integer := p_count;
  taken integer := 0;
  room jsonb := coalesce(p_room, '{}');
  allowance integer;
  q_reopen bigint := 0;
  fresh boolean := false;
  free integer;
  wait_ms bigint := 0;
  grouped boolean;
  v_rr integer;
  ring_len integer;
  pick jsonb;
  jid text;
  skip text[] := '{}';
  reopen_at bigint;
BEGIN
  SELECT * INTO q FROM @schema@.queues WHERE name = p_queue;
  IF NOT FOUND OR n <= 0 OR q.paused THEN RETURN jsonb_build_object('jobs', out, 'waitMs', 0); END IF;
  IF q.lu > now THEN RETURN jsonb_build_object('jobs', out, 'waitMs', q.lu - now); END IF;
  IF q.rl_max IS NOT NULL OR q.gc IS NOT NULL THEN
    SELECT * INTO q FROM @schema@.queues WHERE name = p_queue FOR UPDATE;
    -- The clock again once the lock is held: a claim that waited on another's lock starts its jobs (started_at,
    -- lease_until, the rate window) after that claim committed, not when it began waiting.
    now := @schema@.now_ms();
  END IF;
  IF q.rl_max IS NOT NULL THEN
    IF now >= q.rlw + q.rl_dur THEN allowance := q.rl_max; q_reopen := now + q.rl_dur; fresh := true;
    ELSE allowance := q.rl_max - q.rln; q_reopen := q.rlw + q.rl_dur; END IF;
    IF allowance <= 0 THEN RETURN jsonb_build_object('jobs', out, 'waitMs', q_reopen - now); END IF;
    n := least(n, allowance);
  END IF;
  IF q.gc IS NOT NULL THEN
    free := q.gc - (SELECT count(*) FROM @schema@.jobs WHERE queue = p_queue AND state = 'active');
    IF free <= 0 THEN RETURN jsonb_build_object('jobs', out, 'waitMs', 0); END IF;
    n := least(n, free);
    -- And after the count: a completion that committed before the count read its clock earlier, so the job started
    -- here never seems to overlap the one whose slot it took (finished_at <= started_at).
    now := @schema@.now_ms();
  END IF;

  grouped := EXISTS (SELECT 1 FROM @schema@.jobs WHERE queue = p_queue AND state = 'waiting' AND grp IS NOT NULL);
  IF NOT grouped AND room = '{}'::jsonb THEN
    -- No group waits and no name is capped: the head of the wait order, in one locked batch.
    FOR j IN SELECT * FROM @schema@.jobs
              WHERE queue = p_queue AND state = 'waiting' AND NOT (name = ANY (q.paused_names))
              ORDER BY ws LIMIT n + 100 FOR UPDATE SKIP LOCKED LOOP
      EXIT WHEN taken >= n;
      IF j.deadline > 0 AND now > j.deadline THEN
        PERFORM @schema@.dead_letter(p_queue, j.id, 'deadline', 'deadline passed before the job could start', '', 'DeadlineExceededError', now);
        PERFORM @schema@.metric_dead(p_queue, now, j.name);
        CONTINUE;
      END IF;
      out := out || jsonb_build_array(@schema@.start_job(p_queue, j.id, p_worker, p_lock_ms, now));
      taken := taken + 1;
    END LOOP;
    -- Short, yet jobs wait: SKIP LOCKED passed over rows another transaction holds (a competing claim, a sibling
    -- recording its result on a started flow parent, a producer's changeDelay()) or they committed after the scan
    -- began. The worker would go idle on a queue with work and no wake-up to come: it claims again shortly instead.
    IF taken < n AND EXISTS (SELECT 1 FROM @schema@.jobs WHERE queue = p_queue AND state = 'waiting'
                              AND NOT (name = ANY (q.paused_names))) THEN
      wait_ms := 10;
    END IF;
  ELSIF NOT grouped THEN
    -- Capped names: candidates are read unlocked and locked one by one as they are taken, so the jobs this worker
    -- has no room for stay free for a concurrent claim of another worker.
    FOR j IN SELECT * FROM @schema@.jobs
              WHERE queue = p_queue AND state = 'waiting' AND NOT (name = ANY (q.paused_names))
              ORDER BY ws LIMIT n + 100 LOOP
      EXIT WHEN taken >= n;
      CONTINUE WHEN room ? j.name AND (room->>j.name)::integer <= 0;
      PERFORM 1 FROM @schema@.jobs WHERE queue = p_queue AND id = j.id AND state = 'waiting' FOR UPDATE SKIP LOCKED;
      -- Held by another transaction (see the retry above): claim again shortly rather than go idle.
      IF NOT FOUND THEN wait_ms := 10; CONTINUE; END IF;
      IF j.deadline > 0 AND now > j.deadline THEN
        PERFORM @schema@.dead_letter(p_queue, j.id, 'deadline', 'deadline passed before the job could start', '', 'DeadlineExceededError', now);
        PERFORM @schema@.metric_dead(p_queue, now, j.name);
        CONTINUE;
      END IF;
      IF room ? j.name THEN room := jsonb_set(room, ARRAY[j.name], to_jsonb((room->>j.name)::integer - 1)); END IF;
      out := out || jsonb_build_array(@schema@.start_job(p_queue, j.id, p_worker, p_lock_ms, now));
      taken := taken + 1;
    END LOOP;
  ELSE
    -- Groups wait: round-robin through the ring; the ungrouped jobs take a turn once every group in the ring had one.
    SELECT rr INTO v_rr FROM @schema@.queues WHERE name = p_queue FOR UPDATE;
    PERFORM @schema@.groups_reopen(p_queue, now);
    FOR budget IN 1 .. n + 100 LOOP
      EXIT WHEN taken >= n;
      pick := NULL;
      jid := NULL;
      ring_len := (SELECT count(*) FROM @schema@.ring WHERE queue = p_queue);
      IF ring_len > 0 AND (v_rr < ring_len OR NOT EXISTS (
            SELECT 1 FROM @schema@.jobs WHERE queue = p_queue AND state = 'waiting' AND grp IS NULL
               AND NOT (name = ANY (q.paused_names)) AND NOT (id = ANY (skip)))) THEN
        pick := @schema@.pop_group(p_queue, now, q.paused_names, skip);
        IF pick IS NOT NULL THEN
          jid := pick->>'id';
          IF v_rr < (SELECT count(*) FROM @schema@.ring WHERE queue = p_queue) THEN v_rr := v_rr + 1; END IF;
        END IF;
      END IF;
      IF jid IS NULL THEN
        SELECT id INTO jid FROM @schema@.jobs WHERE queue = p_queue AND state = 'waiting' AND grp IS NULL
           AND NOT (name = ANY (q.paused_names)) AND NOT (id = ANY (skip)) ORDER BY ws LIMIT 1 FOR UPDATE SKIP LOCKED;
        IF jid IS NOT NULL THEN v_rr := 0; END IF;
      END IF;
      IF jid IS NULL THEN
        SELECT min(reopen) INTO reopen_at FROM @schema@.groups WHERE queue = p_queue AND reopen IS NOT NULL;
        IF reopen_at IS NOT NULL THEN wait_ms := greatest(1, reopen_at - now); END IF;
        EXIT;
      END IF;
      SELECT * INTO j FROM @schema@.jobs WHERE queue = p_queue AND id = jid;
      IF room ? j.name AND (room->>j.name)::integer <= 0 THEN
        skip := skip || jid;
        CONTINUE;
      END IF;
      IF j.deadline > 0 AND now > j.deadline THEN
        PERFORM @schema@.dead_letter(p_queue, j.id, 'deadline', 'deadline passed before the job could start', '', 'DeadlineExceededError', now);
        PERFORM @schema@.metric_dead(p_queue, now, j.name);
        CONTINUE;
      END IF;
      IF room ? j.name THEN room := jsonb_set(room, ARRAY[j.name], to_jsonb((room->>j.name)::integer - 1)); END IF;
      out := out || jsonb_build_array(@schema@.start_job(p_queue, j.id, p_worker, p_lock_ms, now));
      taken := taken + 1;
      IF pick IS NOT NULL THEN PERFORM @schema@.group_started(p_queue, pick, now); END IF;
    END LOOP;
    -- Groups stepped over for a name's room get their turn back.
    FOR jid IN SELECT DISTINCT grp FROM @schema@.jobs WHERE queue = p_queue AND id = ANY (skip) AND grp IS NOT NULL LOOP
      PERFORM @schema@.group_ready(p_queue, jid);
    END LOOP;
    UPDATE @schema@.queues SET rr = v_rr WHERE name = p_queue;
  END IF;

  IF q.rl_max IS NOT NULL THEN
    IF taken >= allowance AND wait_ms = 0 THEN wait_ms := greatest(1, q_reopen - now); END IF;
    IF taken > 0 THEN
      IF fresh THEN UPDATE @schema@.queues SET rlw = now, rln = taken WHERE name = p_queue;
      ELSE UPDATE @schema@.queues SET rln = rln + taken WHERE name = p_queue; END IF;
    END IF;
  END IF;
  RETURN jsonb_build_object('jobs', out, 'waitMs', wait_ms);
END $$;

-- includes/claim-job: one job to active under a fresh lease token `<worker>:<claims>`; returns its row.
CREATE OR REPLACE FUNCTION @schema@.start_job(p_queue text, p_id text, p_worker text, p_lock_ms bigint, p_now bigint) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  j @schema@.jobs;
BEGIN
  UPDATE @schema@.jobs SET state = 'active', claims = claims + 1, attempt = attempt + 1, token = p_worker || ':' || (claims + 1),
         started_at = p_now, lease_until = p_now + p_lock_ms
   WHERE queue = p_queue AND id = p_id RETURNING * INTO j;
  PERFORM @schema@.emit(p_queue, 'active', jsonb_build_object('jobId', j.id, 'attempt', j.attempt));
  RETURN to_jsonb(j);
END $$;
