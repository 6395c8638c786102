-- Cron and every-N schedulers: includes/schedulers, scheduler-upsert.lua, scheduler-refill.lua, scheduler-remove.lua.
-- A scheduler's pending tick is a delayed job <id>:<tick ms>; promote() applies the missed policy to due
-- schedulers and arms their next tick.

-- spool_sched_job: the tick's job, written delayed at the tick; null when that id already names a job.
CREATE OR REPLACE FUNCTION @schema@.sched_tick_job(p_queue text, p_sid text, p_tpl jsonb, p_tick bigint, p_now bigint) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  jid text := p_sid || ':' || p_tick;
BEGIN
  IF EXISTS (SELECT 1 FROM @schema@.jobs WHERE queue = p_queue AND id = jid) THEN RETURN NULL; END IF;
  INSERT INTO @schema@.jobs (queue, id, name, data, opts, state, max_attempts, created_at, run_at, deadline, priority, lifo,
                             grp, trace, rc_count, rc_age, rf_count, rf_age)
  VALUES (p_queue, jid, p_tpl->>'name', p_tpl->>'data', p_tpl->>'opts', 'delayed', (p_tpl->>'maxAttempts')::integer, p_now, p_tick, 0,
          (p_tpl->>'priority')::integer, (p_tpl->>'lifo')::boolean, p_tpl->>'group', p_tpl->>'trace',
          (p_tpl->'rc'->>0)::integer, (p_tpl->'rc'->>1)::bigint, (p_tpl->'rf'->>0)::integer, (p_tpl->'rf'->>1)::bigint);
  RETURN jid;
END $$;

-- spool_sched_drop_pending: the tick's job goes if it is still delayed.
CREATE OR REPLACE FUNCTION @schema@.sched_drop_pending(p_queue text, p_sid text, p_tick bigint) RETURNS void LANGUAGE sql AS $$
  DELETE FROM @schema@.jobs WHERE queue = p_queue AND id = p_sid || ':' || p_tick AND state = 'delayed'
$$;

-- Places a tick job (delayed -> waiting); true when claimable now.
CREATE OR REPLACE FUNCTION @schema@.sched_place(p_queue text, p_jid text, p_now bigint) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  j @schema@.jobs;
BEGIN
  SELECT * INTO j FROM @schema@.jobs WHERE queue = p_queue AND id = p_jid AND state = 'delayed';
  IF NOT FOUND THEN RETURN false; END IF;
  UPDATE @schema@.jobs SET hold_until = NULL WHERE queue = p_queue AND id = p_jid;
  RETURN @schema@.place(p_queue, p_jid, @schema@.wait_score(j.priority, j.lifo), p_now);
END $$;

-- spool_sched_arm: the next pending tick after now, within endAt and limit.  returns {next, low}
CREATE OR REPLACE FUNCTION @schema@.sched_arm(p_queue text, p_sid text, p_now bigint) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  h @schema@.schedulers;
  nxt bigint;
  rest bigint[];
  listed integer;
BEGIN
  SELECT * INTO h FROM @schema@.schedulers WHERE queue = p_queue AND id = p_sid FOR UPDATE;
  IF h.kind = 'every' THEN
    nxt := CASE WHEN p_now < h.anchor THEN h.anchor ELSE h.anchor + ((p_now - h.anchor) / h.every + 1) * h.every END;
    rest := h.times;
  ELSE
    SELECT min(t) INTO nxt FROM unnest(h.times) t WHERE t > p_now;
    rest := coalesce((SELECT array_agg(t ORDER BY t) FROM unnest(h.times) t WHERE t > nxt), '{}');
  END IF;
  listed := cardinality(rest);
  IF nxt IS NULL THEN
    UPDATE @schema@.schedulers SET times = '{}', next = NULL, starved = true, due = p_now + 60000 WHERE queue = p_queue AND id = p_sid;
    RETURN jsonb_build_object('next', NULL, 'low', true);
  END IF;
  IF (h.stop > 0 AND nxt > h.stop) OR (h.lim > 0 AND h.count >= h.lim) THEN
    UPDATE @schema@.schedulers SET times = rest, next = NULL, starved = false, due = NULL WHERE queue = p_queue AND id = p_sid;
    RETURN jsonb_build_object('next', NULL, 'low', false);
  END IF;
  PERFORM @schema@.sched_tick_job(p_queue, p_sid, h.tpl, nxt, p_now);
  UPDATE @schema@.schedulers SET times = rest, next = nxt, starved = false, due = nxt WHERE queue = p_queue AND id = p_sid;
  RETURN jsonb_build_object('next', nxt, 'low', h.kind = 'cron' AND listed < 25);
END $$;

-- spool_sched_room: tick jobs the queue takes now (none while paused; maxWaiting less what waits).
CREATE OR REPLACE FUNCTION @schema@.sched_room(p_queue text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  q @schema@.queues;
BEGIN
  SELECT * INTO q FROM @schema@.queues WHERE name = p_queue;
  IF q.paused THEN RETURN 0; END IF;
  IF q.mw IS NULL THEN RETURN 1000000000; END IF;
  RETURN q.mw - (SELECT count(*) FROM @schema@.jobs WHERE queue = p_queue AND state = 'waiting');
END $$;

-- spool_sched_advance (promote's part): due schedulers apply their missed policy and arm their next tick, or are held
-- while the queue has no room.  returns {claimable, refill: [id]}
CREATE OR REPLACE FUNCTION @schema@.sched_advance(p_queue text, p_now bigint) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  h @schema@.schedulers;
  free bigint := NULL;
  claimable integer := 0;
  refill jsonb := '[]';
  t0 bigint;
  fell bigint[];
  total integer;
  upto bigint;
  t bigint;
  ran integer;
  last_id text;
  last_at bigint;
  jid text;
  armed jsonb;
BEGIN
  FOR h IN SELECT * FROM @schema@.schedulers WHERE queue = p_queue AND due <= p_now ORDER BY due, id LIMIT 100 FOR UPDATE SKIP LOCKED LOOP
    IF free IS NULL THEN free := @schema@.sched_room(p_queue); END IF;
    t0 := h.next;
    IF t0 IS NOT NULL AND free <= 0 THEN
      UPDATE @schema@.schedulers SET due = p_now + 1000 WHERE queue = p_queue AND id = h.id;
      UPDATE @schema@.jobs SET hold_until = p_now + 1000 WHERE queue = p_queue AND id = h.id || ':' || t0 AND state = 'delayed';
      CONTINUE;
    END IF;
    IF t0 IS NOT NULL THEN
      fell := '{}';
      total := 0;
      IF h.kind = 'every' THEN
        upto := CASE WHEN h.stop > 0 AND h.stop < p_now THEN h.stop ELSE p_now END;
        IF upto > t0 THEN total := (upto - t0) / h.every; END IF;
        FOR k IN 1 .. least(total, 50) LOOP fell := fell || (t0 + k * h.every); END LOOP;
      ELSE
        FOREACH t IN ARRAY h.times LOOP
          EXIT WHEN t > p_now OR (h.stop > 0 AND t > h.stop);
          total := total + 1;
          IF total <= 50 THEN fell := fell || t; END IF;
        END LOOP;
      END IF;
      IF h.missed = 'skip' AND total > 0 THEN
        PERFORM @schema@.sched_drop_pending(p_queue, h.id, t0);
        h.skipped := h.skipped + total + 1;
      ELSE
        h.count := h.count + 1;
        free := free - 1;
        last_id := h.id || ':' || t0;
        last_at := t0;
        ran := 0;
        IF h.missed = 'all' AND cardinality(fell) > 0 THEN
          -- t0 goes first, so the catch-up runs in tick order.
          IF @schema@.sched_place(p_queue, h.id || ':' || t0, p_now) THEN claimable := claimable + 1; END IF;
          FOREACH t IN ARRAY fell LOOP
            EXIT WHEN (h.lim > 0 AND h.count >= h.lim) OR free <= 0;
            jid := @schema@.sched_tick_job(p_queue, h.id, h.tpl, t, p_now);
            IF jid IS NOT NULL AND @schema@.sched_place(p_queue, jid, p_now) THEN claimable := claimable + 1; END IF;
            h.count := h.count + 1; ran := ran + 1; last_id := h.id || ':' || t; last_at := t; free := free - 1;
          END LOOP;
        END IF;
        h.skipped := h.skipped + total - ran;
        h.last := last_id;
        h.last_at := last_at;
      END IF;
      UPDATE @schema@.schedulers SET count = h.count, skipped = h.skipped, last = h.last, last_at = h.last_at WHERE queue = p_queue AND id = h.id;
    END IF;
    armed := @schema@.sched_arm(p_queue, h.id, p_now);
    IF (armed->>'low')::boolean THEN refill := refill || to_jsonb(h.id); END IF;
  END LOOP;
  RETURN jsonb_build_object('claimable', claimable, 'refill', refill);
END $$;

-- scheduler-upsert.lua: the same spec changes nothing; a new one replaces the pending tick and starts the count afresh.
--   p_s: {id, spec, kind, every, anchor, endAt, limit, missed, job: <as add>, times: [ms]}  returns {changed, next}
CREATE OR REPLACE FUNCTION @schema@.scheduler_upsert(p_queue text, p_s jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  now bigint := @schema@.now_ms();
  cur @schema@.schedulers;
  armed jsonb;
BEGIN
  PERFORM @schema@.ensure_queue(p_queue);
  -- FOR UPDATE locks no row while the scheduler does not exist yet: callers upserting a new one at once would each
  -- see none and each report changed. This lock (held to commit) makes them take turns; under READ COMMITTED the
  -- SELECT below then sees the first one's committed row, as the Lua script's atomic run does.
  PERFORM pg_advisory_xact_lock(hashtext('spool-scheduler:@schema@:' || p_queue || ':' || (p_s->>'id')));
  SELECT * INTO cur FROM @schema@.schedulers WHERE queue = p_queue AND id = p_s->>'id' FOR UPDATE;
  IF FOUND AND cur.spec = p_s->>'spec' THEN RETURN jsonb_build_object('changed', false, 'next', cur.next); END IF;
  IF FOUND AND cur.next IS NOT NULL THEN PERFORM @schema@.sched_drop_pending(p_queue, cur.id, cur.next); END IF;
  INSERT INTO @schema@.schedulers (queue, id, spec, kind, every, anchor, stop, lim, missed, tpl, times, created_at, updated_at)
  VALUES (p_queue, p_s->>'id', p_s->>'spec', p_s->>'kind', (p_s->>'every')::bigint, (p_s->>'anchor')::bigint, (p_s->>'endAt')::bigint,
          (p_s->>'limit')::integer, p_s->>'missed', p_s->'job',
          coalesce((SELECT array_agg(v::bigint) FROM jsonb_array_elements_text(p_s->'times') v), '{}'), coalesce(cur.created_at, now), now)
  ON CONFLICT (queue, id) DO UPDATE SET spec = EXCLUDED.spec, kind = EXCLUDED.kind, every = EXCLUDED.every, anchor = EXCLUDED.anchor,
    stop = EXCLUDED.stop, lim = EXCLUDED.lim, missed = EXCLUDED.missed, tpl = EXCLUDED.tpl, times = EXCLUDED.times, count = 0, skipped = 0,
    next = NULL, starved = false, paused = false, last = NULL, last_at = NULL, updated_at = EXCLUDED.updated_at;
  armed := @schema@.sched_arm(p_queue, p_s->>'id', now);
  IF armed->>'next' IS NOT NULL THEN PERFORM @schema@.announce_delayed(p_queue, (armed->>'next')::bigint - now); END IF;
  RETURN jsonb_build_object('changed', true, 'next', armed->'next');
END $$;

-- scheduler-refill.lua: appends the times after the last one held (at most 100 kept); a starved scheduler gets its
-- tick now.  returns how many were added, -1 when the scheduler is gone or has another spec
CREATE OR REPLACE FUNCTION @schema@.scheduler_refill(p_queue text, p_id text, p_spec text, p_times bigint[]) RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  now bigint := @schema@.now_ms();
  h @schema@.schedulers;
  last bigint;
  added integer := 0;
  t bigint;
  ts bigint[];
  armed jsonb;
BEGIN
  SELECT * INTO h FROM @schema@.schedulers WHERE queue = p_queue AND id = p_id FOR UPDATE;
  IF NOT FOUND OR h.spec <> p_spec THEN RETURN -1; END IF;
  ts := h.times;
  last := coalesce(ts[cardinality(ts)], h.next, 0);
  FOREACH t IN ARRAY p_times LOOP
    CONTINUE WHEN t <= last OR cardinality(ts) >= 100;
    ts := ts || t;
    last := t;
    added := added + 1;
  END LOOP;
  UPDATE @schema@.schedulers SET times = ts WHERE queue = p_queue AND id = p_id;
  IF h.starved AND NOT h.paused THEN
    IF cardinality(ts) = 0 THEN
      UPDATE @schema@.schedulers SET next = NULL, starved = false, due = NULL WHERE queue = p_queue AND id = p_id;
      RETURN added;
    END IF;
    armed := @schema@.sched_arm(p_queue, p_id, now);
    IF armed->>'next' IS NOT NULL THEN PERFORM @schema@.announce_delayed(p_queue, (armed->>'next')::bigint - now); END IF;
  END IF;
  RETURN added;
END $$;

-- scheduler-remove.lua: the scheduler and its pending tick while still delayed; promoted ticks run on.
CREATE OR REPLACE FUNCTION @schema@.scheduler_remove(p_queue text, p_id text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  h @schema@.schedulers;
BEGIN
  DELETE FROM @schema@.schedulers WHERE queue = p_queue AND id = p_id RETURNING * INTO h;
  IF NOT FOUND THEN RETURN false; END IF;
  IF h.next IS NOT NULL THEN PERFORM @schema@.sched_drop_pending(p_queue, p_id, h.next); END IF;
  RETURN true;
END $$;

-- scheduler-pause.lua: kept, its pending tick gone (while delayed; a cron tick's time goes back to the list, so a
-- resume before it arms it again); nothing is armed until resume.  returns paused | already | unknown
CREATE OR REPLACE FUNCTION @schema@.scheduler_pause(p_queue text, p_id text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  h @schema@.schedulers;
BEGIN
  SELECT * INTO h FROM @schema@.schedulers WHERE queue = p_queue AND id = p_id FOR UPDATE;
  IF NOT FOUND THEN RETURN 'unknown'; END IF;
  IF h.paused THEN RETURN 'already'; END IF;
  IF h.next IS NOT NULL THEN
    PERFORM @schema@.sched_drop_pending(p_queue, p_id, h.next);
    IF h.kind = 'cron' THEN h.times := h.next || h.times; END IF;
  END IF;
  UPDATE @schema@.schedulers SET paused = true, next = NULL, times = h.times, due = NULL WHERE queue = p_queue AND id = p_id;
  RETURN 'paused';
END $$;

-- scheduler-resume.lua: the next tick after now is armed; ticks that fell while paused do not run.
--   returns {outcome: resumed | running | unknown, next}
CREATE OR REPLACE FUNCTION @schema@.scheduler_resume(p_queue text, p_id text) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  now bigint := @schema@.now_ms();
  h @schema@.schedulers;
  armed jsonb;
BEGIN
  SELECT * INTO h FROM @schema@.schedulers WHERE queue = p_queue AND id = p_id FOR UPDATE;
  IF NOT FOUND THEN RETURN jsonb_build_object('outcome', 'unknown', 'next', NULL); END IF;
  IF NOT h.paused THEN RETURN jsonb_build_object('outcome', 'running', 'next', h.next); END IF;
  UPDATE @schema@.schedulers SET paused = false WHERE queue = p_queue AND id = p_id;
  armed := @schema@.sched_arm(p_queue, p_id, now);
  IF armed->>'next' IS NOT NULL THEN PERFORM @schema@.announce_delayed(p_queue, (armed->>'next')::bigint - now); END IF;
  RETURN jsonb_build_object('outcome', 'resumed', 'next', armed->'next');
END $$;
