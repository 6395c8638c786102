-- includes/metrics: per-minute counters written by the transitions (complete, fail, reap, claim, child-done).

CREATE OR REPLACE FUNCTION @schema@.metric_add(p_queue text, p_now bigint, p_field text, p_n bigint) RETURNS void LANGUAGE sql AS $$
  INSERT INTO @schema@.metrics (queue, minute, field, n) VALUES (p_queue, p_now / 60000, p_field, p_n)
  ON CONFLICT (queue, minute, field) DO UPDATE SET n = @schema@.metrics.n + EXCLUDED.n
$$;

-- spool_metric_suffix: ':<name>' while the name holds a slot (taking a free one, or one unused for an hour), '' for the others.
CREATE OR REPLACE FUNCTION @schema@.metric_suffix(p_queue text, p_name text, p_now bigint) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  minute bigint := p_now / 60000;
  seen bigint;
  oldest @schema@.metric_names;
BEGIN
  IF p_name IS NULL THEN RETURN ''; END IF;
  SELECT m.minute INTO seen FROM @schema@.metric_names m WHERE queue = p_queue AND name = p_name;
  IF seen IS NOT NULL AND seen >= minute THEN RETURN ':' || p_name; END IF;
  IF seen IS NULL AND (SELECT count(*) FROM @schema@.metric_names WHERE queue = p_queue) >= 20 THEN
    SELECT * INTO oldest FROM @schema@.metric_names WHERE queue = p_queue ORDER BY minute, name LIMIT 1;
    IF oldest.minute > minute - 60 THEN RETURN ''; END IF;
    DELETE FROM @schema@.metric_names WHERE queue = p_queue AND name = oldest.name;
  END IF;
  INSERT INTO @schema@.metric_names (queue, name, minute) VALUES (p_queue, p_name, minute)
  ON CONFLICT (queue, name) DO UPDATE SET minute = EXCLUDED.minute;
  RETURN ':' || p_name;
END $$;

-- spool_metric_completed: the duration bucket (smallest k with ms <= 2^k, capped at 21) and the sum; hn when not measured.
CREATE OR REPLACE FUNCTION @schema@.metric_completed(p_queue text, p_now bigint, p_duration double precision, p_name text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  s text := @schema@.metric_suffix(p_queue, p_name, p_now);
  ms bigint;
  k integer := 0;
BEGIN
  IF p_duration IS NULL OR p_duration < 0 THEN
    PERFORM @schema@.metric_add(p_queue, p_now, 'hn' || s, 1);
    RETURN;
  END IF;
  ms := ceil(p_duration);
  WHILE k < 21 AND (2::bigint ^ k) < ms LOOP k := k + 1; END LOOP;
  PERFORM @schema@.metric_add(p_queue, p_now, 'h' || k || s, 1);
  IF ms > 0 THEN PERFORM @schema@.metric_add(p_queue, p_now, 'ms' || s, ms); END IF;
END $$;

-- spool_metric_failed: a failed attempt, retried (delay >= 0) or dead.
CREATE OR REPLACE FUNCTION @schema@.metric_failed(p_queue text, p_now bigint, p_delay bigint, p_name text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  s text := @schema@.metric_suffix(p_queue, p_name, p_now);
BEGIN
  PERFORM @schema@.metric_add(p_queue, p_now, 'f' || s, 1);
  PERFORM @schema@.metric_add(p_queue, p_now, CASE WHEN p_delay < 0 THEN 'd' ELSE 'r' END || s, 1);
END $$;

-- spool_metric_reaped: a lease expired; the job went to waiting or failed (cancelled ones are not counted).
CREATE OR REPLACE FUNCTION @schema@.metric_reaped(p_queue text, p_now bigint, p_state text, p_name text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  s text;
BEGIN
  IF p_state = 'cancelled' THEN RETURN; END IF;
  s := @schema@.metric_suffix(p_queue, p_name, p_now);
  PERFORM @schema@.metric_add(p_queue, p_now, 's' || s, 1);
  IF p_state = 'failed' THEN PERFORM @schema@.metric_add(p_queue, p_now, 'd' || s, 1); END IF;
END $$;

-- spool_metric_dead: dead-lettered outside fail and reap (a passed deadline at claim, a failed child).
CREATE OR REPLACE FUNCTION @schema@.metric_dead(p_queue text, p_now bigint, p_name text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM @schema@.metric_add(p_queue, p_now, 'd' || @schema@.metric_suffix(p_queue, p_name, p_now), 1);
END $$;

-- Counts of a batch of completions, written once per name and field in sorted order: concurrent completions
-- take the counter rows in one order, so they never deadlock (each would otherwise lock its own buckets first).
--   p_done: [{name, durationMs?}]
CREATE OR REPLACE FUNCTION @schema@.metric_completed_many(p_queue text, p_now bigint, p_done jsonb) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  nm text;
  s text;
  acc jsonb := '{}';
  x jsonb;
  ms bigint;
  k integer;
  f text;
  v text;
BEGIN
  FOR nm IN SELECT DISTINCT e->>'name' FROM jsonb_array_elements(p_done) e ORDER BY 1 LOOP
    s := @schema@.metric_suffix(p_queue, nm, p_now);
    FOR x IN SELECT e FROM jsonb_array_elements(p_done) e WHERE e->>'name' = nm LOOP
      IF x->'durationMs' IS NULL OR jsonb_typeof(x->'durationMs') <> 'number' OR (x->>'durationMs')::double precision < 0 THEN
        acc := jsonb_set(acc, ARRAY['hn' || s], to_jsonb(coalesce((acc->>('hn' || s))::bigint, 0) + 1));
      ELSE
        ms := ceil((x->>'durationMs')::double precision);
        k := 0;
        WHILE k < 21 AND (2::bigint ^ k) < ms LOOP k := k + 1; END LOOP;
        acc := jsonb_set(acc, ARRAY['h' || k || s], to_jsonb(coalesce((acc->>('h' || k || s))::bigint, 0) + 1));
        IF ms > 0 THEN acc := jsonb_set(acc, ARRAY['ms' || s], to_jsonb(coalesce((acc->>('ms' || s))::bigint, 0) + ms)); END IF;
      END IF;
    END LOOP;
  END LOOP;
  FOR f, v IN SELECT key, value FROM jsonb_each_text(acc) ORDER BY key LOOP
    PERFORM @schema@.metric_add(p_queue, p_now, f, v::bigint);
  END LOOP;
END $$;

-- gauges.lua: the minute's one sample of the oldest waiting age (gw) and the delayed lag (gl), ms, as two rows of
-- the minute's counters (promote() deletes them with it). A worker's heartbeat calls it at most once a minute; a
-- later call in the same minute finds the sample and leaves it (ON CONFLICT DO NOTHING). True when it sampled.
CREATE OR REPLACE FUNCTION @schema@.sample_gauges(p_queue text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  now bigint := @schema@.now_ms();
  oldest bigint;
  earliest bigint;
  added integer;
BEGIN
  IF EXISTS (SELECT 1 FROM @schema@.metrics WHERE queue = p_queue AND minute = now / 60000 AND field = 'gw') THEN
    RETURN false;
  END IF;
  SELECT min(run_at) INTO oldest FROM @schema@.jobs WHERE queue = p_queue AND state = 'waiting';
  SELECT min(run_at) INTO earliest FROM @schema@.jobs WHERE queue = p_queue AND state = 'delayed';
  INSERT INTO @schema@.metrics (queue, minute, field, n)
  VALUES (p_queue, now / 60000, 'gw', greatest(0, now - coalesce(oldest, now))),
         (p_queue, now / 60000, 'gl', greatest(0, now - coalesce(earliest, now)))
  ON CONFLICT (queue, minute, field) DO NOTHING;
  GET DIAGNOSTICS added = ROW_COUNT;
  RETURN added > 0;
END $$;
