-- add.lua: new jobs to waiting or delayed. A job id that names a job, or a dedup key held, returns the existing
-- job; the batch is added whole, or refused whole when it would pass maxWaiting / maxWaitingPerGroup.
--   p_jobs: [{id, name, data, opts, delay, priority, lifo, maxAttempts, deadline, dedup: {key, ttl}?,
--             rc: [count, age], rf: [count, age], group?, trace?, reportTaken?}]
--   returns {status: 'added', jobs: [{created, id, state?, createdAt?, runAt?, existing?, taken?}]}
--         | {status: 'full', limit, group?}
-- Locks no queue row: an add inside a caller's transaction holds nothing other writers wait on.
CREATE OR REPLACE FUNCTION @schema@.add(p_queue text, p_jobs jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  now bigint := @schema@.now_ms();
  q @schema@.queues;
  x jsonb;
  -- A plpgsql array grows in place; jsonb `||` would copy the whole list on every job (quadratic in the batch).
  out jsonb[] := '{}';
  holder text;
  new_waiting integer := 0;
  per_group jsonb := '{}';
  g text;
  delay bigint;
  st text;
  existing @schema@.jobs;
  woken boolean := false;
  earliest bigint;
  wsc bigint;
BEGIN
  PERFORM @schema@.ensure_queue(p_queue);
  SELECT * INTO q FROM @schema@.queues WHERE name = p_queue;
  IF q.mw IS NOT NULL OR q.mwg IS NOT NULL THEN
    FOR x IN SELECT * FROM jsonb_array_elements(p_jobs) LOOP
      CONTINUE WHEN (x->>'delay')::bigint > 0;
      CONTINUE WHEN EXISTS (SELECT 1 FROM @schema@.jobs WHERE queue = p_queue AND id = x->>'id');
      new_waiting := new_waiting + 1;
      IF x->>'group' IS NOT NULL THEN
        per_group := jsonb_set(per_group, ARRAY[x->>'group'], to_jsonb(coalesce((per_group->>(x->>'group'))::integer, 0) + 1));
      END IF;
    END LOOP;
    IF new_waiting > 0 AND q.mw IS NOT NULL AND
       (SELECT count(*) FROM @schema@.jobs WHERE queue = p_queue AND state = 'waiting') + new_waiting > q.mw THEN
      RETURN jsonb_build_object('status', 'full', 'limit', q.mw);
    END IF;
    IF q.mwg IS NOT NULL THEN
      FOR g IN SELECT jsonb_object_keys(per_group) LOOP
        IF (SELECT count(*) FROM @schema@.jobs WHERE queue = p_queue AND state = 'waiting' AND grp = g) + (per_group->>g)::integer > q.mwg THEN
          RETURN jsonb_build_object('status', 'full', 'limit', q.mwg, 'group', g);
        END IF;
      END LOOP;
    END IF;
  END IF;

  FOR x IN SELECT * FROM jsonb_array_elements(p_jobs) LOOP
    holder := NULL;
    SELECT * INTO existing FROM @schema@.jobs WHERE queue = p_queue AND id = x->>'id';
    IF FOUND AND x->>'id' ~ '^(0|[1-9][0-9]*)$' THEN
      -- A numbered id another job holds: the counter went back (includes/ids).
      IF (x->>'reportTaken')::boolean IS TRUE THEN
        out := out || jsonb_build_object('created', false, 'id', x->>'id', 'existing', NULL, 'taken', true);
        CONTINUE;
      END IF;
      x := jsonb_set(x, '{id}', to_jsonb(@schema@.renumber(p_queue, (x->>'id')::bigint)));
    ELSIF FOUND THEN
      out := out || jsonb_build_object('created', false, 'id', x->>'id', 'existing', to_jsonb(existing));
      CONTINUE;
    END IF;
    IF x->'dedup' IS NOT NULL AND jsonb_typeof(x->'dedup') = 'object' THEN
      DELETE FROM @schema@.dedup WHERE queue = p_queue AND key = x->'dedup'->>'key' AND expires_at IS NOT NULL AND expires_at <= now;
      SELECT job_id INTO holder FROM @schema@.dedup WHERE queue = p_queue AND key = x->'dedup'->>'key';
      IF holder IS NOT NULL THEN
        SELECT * INTO existing FROM @schema@.jobs WHERE queue = p_queue AND id = holder;
        out := out || jsonb_build_object('created', false, 'id', holder, 'existing', CASE WHEN FOUND THEN to_jsonb(existing) END);
        CONTINUE;
      END IF;
      INSERT INTO @schema@.dedup (queue, key, job_id, expires_at)
      VALUES (p_queue, x->'dedup'->>'key', x->>'id', CASE WHEN (x->'dedup'->>'ttl')::bigint > 0 THEN now + (x->'dedup'->>'ttl')::bigint END);
    END IF;
    delay := (x->>'delay')::bigint;
    IF delay > 0 THEN st := 'delayed'; wsc := NULL; ELSE st := 'waiting'; wsc := @schema@.wait_score((x->>'priority')::integer, (x->>'lifo')::boolean); END IF;
    INSERT INTO @schema@.jobs (queue, id, name, data, opts, state, max_attempts, created_at, run_at, deadline, priority, lifo, ws,
                               grp, trace, dedup_key, rc_count, rc_age, rf_count, rf_age)
    VALUES (p_queue, x->>'id', x->>'name', x->>'data', x->>'opts', st, (x->>'maxAttempts')::integer, now, now + greatest(delay, 0),
            (x->>'deadline')::bigint, (x->>'priority')::integer, (x->>'lifo')::boolean, wsc, x->>'group', x->>'trace',
            CASE WHEN x->'dedup' IS NOT NULL AND jsonb_typeof(x->'dedup') = 'object' AND (x->'dedup'->>'ttl')::bigint = 0 THEN x->'dedup'->>'key' END,
            (x->'rc'->>0)::integer, (x->'rc'->>1)::bigint, (x->'rf'->>0)::integer, (x->'rf'->>1)::bigint);
    IF st = 'waiting' AND x->>'group' IS NOT NULL THEN PERFORM @schema@.group_ready(p_queue, x->>'group', false); END IF;
    PERFORM @schema@.emit(p_queue, 'added', jsonb_build_object('jobId', x->>'id', 'name', x->>'name', 'state', st));
    IF st = 'delayed' THEN
      PERFORM @schema@.emit(p_queue, 'delayed', jsonb_build_object('jobId', x->>'id', 'delay', delay, 'runAt', now + delay));
      earliest := least(coalesce(earliest, now + delay), now + delay);
    ELSIF NOT q.paused AND NOT (x->>'name' = ANY (q.paused_names)) THEN
      woken := true;
    END IF;
    out := out || jsonb_build_object('created', true, 'id', x->>'id', 'state', st, 'createdAt', now, 'runAt', now + greatest(delay, 0));
  END LOOP;
  IF woken THEN PERFORM @schema@.wake(p_queue); END IF;
  IF earliest IS NOT NULL THEN PERFORM @schema@.announce_delayed(p_queue, earliest - now); END IF;
  RETURN jsonb_build_object('status', 'added', 'jobs', to_jsonb(out));
END $$;

-- reserve-ids.lua: `p_count` ids from the queue's counter; resolves the last. `p_taken`: a numbered id a job
-- was found holding: the counter first moves past every block drawn around it.
CREATE OR REPLACE FUNCTION @schema@.reserve_ids(p_queue text, p_count integer, p_floor bigint) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  last bigint;
BEGIN
  PERFORM @schema@.ensure_queue(p_queue);
  -- p_floor: the taken id less ID_BASE plus RENUMBER_MARGIN (computed by the caller), or null.
  UPDATE @schema@.queues SET ids = greatest(ids, coalesce(p_floor, 0)) + p_count WHERE name = p_queue RETURNING ids INTO last;
  RETURN last;
END $$;

-- includes/ids spool_renumber: past every block drawn around the taken id, then the next number no job holds.
-- ID_BASE (1e9) and RENUMBER_MARGIN (2 * 4096) as in lib/engine/ids.ts.
CREATE OR REPLACE FUNCTION @schema@.renumber(p_queue text, p_taken bigint) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  n bigint;
BEGIN
  UPDATE @schema@.queues SET ids = greatest(ids, p_taken - 1000000000 + 8192) WHERE name = p_queue RETURNING ids INTO n;
  LOOP
    n := n + 1;
    EXIT WHEN NOT EXISTS (SELECT 1 FROM @schema@.jobs WHERE queue = p_queue AND id = (1000000000 + n)::text);
  END LOOP;
  UPDATE @schema@.queues SET ids = n WHERE name = p_queue;
  RETURN (1000000000 + n)::text;
END $$;
