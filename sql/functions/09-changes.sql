-- remove-job, promote-job, change-delay, change-priority, set-data, set-progress: changes to a job no worker
-- holds, refused by state rather than ignored.
--   p_change: {kind: remove|promote|delay|priority|data|progress, delay?, priority?, lifo?, data?, progress?}
--   returns {status: changed|refused|children-pending|flow-child|unknown, state?, pending?}
CREATE OR REPLACE FUNCTION @schema@.change_job(p_queue text, p_id text, p_change jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  now bigint := @schema@.now_ms();
  j @schema@.jobs;
  k text := p_change->>'kind';
  pending integer;
  delay bigint;
BEGIN
  SELECT * INTO j FROM @schema@.jobs WHERE queue = p_queue AND id = p_id FOR UPDATE;
  IF NOT FOUND THEN RETURN jsonb_build_object('status', 'unknown'); END IF;
  IF k = 'remove' THEN
    IF j.state NOT IN ('completed', 'failed', 'cancelled', 'waiting', 'delayed') THEN RETURN jsonb_build_object('status', 'refused', 'state', j.state); END IF;
    SELECT count(*) INTO pending FROM @schema@.deps WHERE parent_queue = p_queue AND parent_id = p_id AND status = 'pending';
    IF pending > 0 THEN RETURN jsonb_build_object('status', 'children-pending', 'state', j.state, 'pending', pending); END IF;
    IF j.state IN ('waiting', 'delayed') AND j.parent_id IS NOT NULL THEN RETURN jsonb_build_object('status', 'flow-child', 'state', j.state); END IF;
    IF j.dedup_key IS NOT NULL THEN DELETE FROM @schema@.dedup WHERE queue = p_queue AND key = j.dedup_key AND job_id = p_id; END IF;
    DELETE FROM @schema@.deps WHERE parent_queue = p_queue AND parent_id = p_id;
    DELETE FROM @schema@.jobs WHERE queue = p_queue AND id = p_id;
    PERFORM @schema@.emit(p_queue, 'removed', jsonb_build_object('jobId', p_id, 'state', j.state));
    RETURN jsonb_build_object('status', 'changed', 'state', j.state);
  ELSIF k = 'promote' OR (k = 'delay' AND (p_change->>'delay')::bigint = 0) THEN
    IF k = 'delay' AND j.state = 'waiting' THEN RETURN jsonb_build_object('status', 'changed', 'state', 'waiting'); END IF;
    IF j.state <> 'delayed' THEN RETURN jsonb_build_object('status', 'refused', 'state', j.state); END IF;
    UPDATE @schema@.jobs SET run_at = now WHERE queue = p_queue AND id = p_id;
    IF @schema@.place(p_queue, p_id, @schema@.wait_score(j.priority, j.lifo), now) THEN PERFORM @schema@.wake(p_queue); END IF;
    RETURN jsonb_build_object('status', 'changed', 'state', 'waiting');
  ELSIF k = 'delay' THEN
    IF j.state NOT IN ('waiting', 'delayed') THEN RETURN jsonb_build_object('status', 'refused', 'state', j.state); END IF;
    delay := (p_change->>'delay')::bigint;
    UPDATE @schema@.jobs SET state = 'delayed', ws = NULL, run_at = now + delay WHERE queue = p_queue AND id = p_id;
    PERFORM @schema@.emit(p_queue, 'delayed', jsonb_build_object('jobId', p_id, 'delay', delay, 'runAt', now + delay));
    PERFORM @schema@.announce_delayed(p_queue, delay);
    RETURN jsonb_build_object('status', 'changed', 'state', 'delayed');
  ELSIF k = 'priority' THEN
    IF j.state NOT IN ('waiting', 'delayed') THEN RETURN jsonb_build_object('status', 'refused', 'state', j.state); END IF;
    UPDATE @schema@.jobs SET priority = (p_change->>'priority')::integer, lifo = (p_change->>'lifo')::boolean,
           ws = CASE WHEN state = 'waiting' THEN @schema@.wait_score((p_change->>'priority')::integer, (p_change->>'lifo')::boolean) ELSE ws END
     WHERE queue = p_queue AND id = p_id;
    RETURN jsonb_build_object('status', 'changed', 'state', j.state);
  ELSIF k = 'data' THEN
    IF j.state NOT IN ('waiting', 'delayed', 'waiting-children', 'failed') THEN RETURN jsonb_build_object('status', 'refused', 'state', j.state); END IF;
    UPDATE @schema@.jobs SET data = p_change->>'data' WHERE queue = p_queue AND id = p_id;
    RETURN jsonb_build_object('status', 'changed', 'state', j.state);
  ELSIF k = 'progress' THEN
    IF j.state NOT IN ('waiting', 'delayed', 'waiting-children') THEN RETURN jsonb_build_object('status', 'refused', 'state', j.state); END IF;
    UPDATE @schema@.jobs SET progress = p_change->>'progress' WHERE queue = p_queue AND id = p_id;
    IF octet_length(p_change->>'progress') <= 1024 THEN
      PERFORM @schema@.emit(p_queue, 'progress', jsonb_build_object('jobId', p_id, 'progress', p_change->>'progress'));
    ELSE
      PERFORM @schema@.emit(p_queue, 'progress', jsonb_build_object('jobId', p_id, 'size', octet_length(p_change->>'progress')));
    END IF;
    RETURN jsonb_build_object('status', 'changed', 'state', j.state);
  END IF;
  RAISE EXCEPTION 'change_job: unknown change kind %', k;
END $$;

-- drain.lua: one bounded step removing waiting (and, on request, delayed) jobs; a flow child is cancelled instead,
-- so its parent hears.  returns {removed, done}
CREATE OR REPLACE FUNCTION @schema@.drain(p_queue text, p_delayed boolean, p_batch integer) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  now bigint := @schema@.now_ms();
  j @schema@.jobs;
  n integer := 0;
BEGIN
  FOR j IN SELECT * FROM @schema@.jobs WHERE queue = p_queue AND (state = 'waiting' OR (p_delayed AND state = 'delayed'))
            ORDER BY state DESC, ws, run_at LIMIT p_batch FOR UPDATE SKIP LOCKED LOOP
    n := n + 1;
    IF j.parent_id IS NOT NULL THEN
      PERFORM @schema@.cancelled(p_queue, j.id, now);
      CONTINUE;
    END IF;
    IF j.dedup_key IS NOT NULL THEN DELETE FROM @schema@.dedup WHERE queue = p_queue AND key = j.dedup_key AND job_id = j.id; END IF;
    DELETE FROM @schema@.jobs WHERE queue = p_queue AND id = j.id;
    PERFORM @schema@.emit(p_queue, 'removed', jsonb_build_object('jobId', j.id, 'state', j.state));
  END LOOP;
  RETURN jsonb_build_object('removed', n, 'done', n < p_batch);
END $$;

-- obliterate: the queue and all it holds, refused while jobs are active unless p_force.
CREATE OR REPLACE FUNCTION @schema@.obliterate(p_queue text, p_force boolean) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  active integer;
BEGIN
  SELECT count(*) INTO active FROM @schema@.jobs WHERE queue = p_queue AND state = 'active';
  IF active > 0 AND NOT p_force THEN RETURN jsonb_build_object('status', 'active', 'active', active); END IF;
  DELETE FROM @schema@.jobs WHERE queue = p_queue;
  DELETE FROM @schema@.deps WHERE parent_queue = p_queue;
  DELETE FROM @schema@.dedup WHERE queue = p_queue;
  DELETE FROM @schema@.once WHERE queue = p_queue;
  DELETE FROM @schema@.workers WHERE queue = p_queue;
  DELETE FROM @schema@.groups WHERE queue = p_queue;
  DELETE FROM @schema@.ring WHERE queue = p_queue;
  DELETE FROM @schema@.events WHERE queue = p_queue;
  DELETE FROM @schema@.event_trims WHERE queue = p_queue;
  DELETE FROM @schema@.metrics WHERE queue = p_queue;
  DELETE FROM @schema@.schedulers WHERE queue = p_queue;
  DELETE FROM @schema@.imported WHERE queue = p_queue;
  DELETE FROM @schema@.metric_names WHERE queue = p_queue;
  DELETE FROM @schema@.queues WHERE name = p_queue;
  RETURN jsonb_build_object('status', 'obliterated');
END $$;

-- purge.lua: one bounded batch removing finished jobs of a state (finished at or before a time, of a name),
-- after a cursor (the last job examined).  returns {removed, done, cursor}
CREATE OR REPLACE FUNCTION @schema@.purge(p_queue text, p_state text, p_before bigint, p_name text, p_batch integer, p_budget integer, p_cursor text) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  j @schema@.jobs;
  examined integer := 0;
  removed integer := 0;
  last text := p_cursor;
  last_at bigint := -1;
BEGIN
  IF p_cursor <> '' THEN SELECT finished_at INTO last_at FROM @schema@.jobs WHERE queue = p_queue AND id = p_cursor; last_at := coalesce(last_at, -1); END IF;
  FOR j IN SELECT * FROM @schema@.jobs WHERE queue = p_queue AND state = p_state
              AND (p_cursor = '' OR (finished_at, id) > (last_at, p_cursor))
            ORDER BY finished_at, id LIMIT p_budget FOR UPDATE SKIP LOCKED LOOP
    examined := examined + 1;
    IF p_before IS NOT NULL AND j.finished_at > p_before THEN
      RETURN jsonb_build_object('removed', removed, 'done', true, 'cursor', last);
    END IF;
    IF (p_name IS NULL OR j.name = p_name) AND NOT EXISTS (
         SELECT 1 FROM @schema@.deps WHERE parent_queue = p_queue AND parent_id = j.id AND status = 'pending') THEN
      DELETE FROM @schema@.deps WHERE parent_queue = p_queue AND parent_id = j.id;
      DELETE FROM @schema@.jobs WHERE queue = p_queue AND id = j.id;
      removed := removed + 1;
    ELSE
      last := j.id;
    END IF;
    EXIT WHEN removed >= p_batch;
  END LOOP;
  RETURN jsonb_build_object('removed', removed, 'done', examined < p_budget AND removed < p_batch, 'cursor', last);
END $$;

-- promote-jobs.lua: the delayed jobs among p_ids to waiting now; how many moved.
CREATE OR REPLACE FUNCTION @schema@.promote_jobs(p_queue text, p_ids text[]) RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  now bigint := @schema@.now_ms();
  j @schema@.jobs;
  n integer := 0;
BEGIN
  FOR j IN SELECT * FROM @schema@.jobs WHERE queue = p_queue AND id = ANY (p_ids) AND state = 'delayed' FOR UPDATE LOOP
    UPDATE @schema@.jobs SET run_at = now WHERE queue = p_queue AND id = j.id;
    PERFORM @schema@.place(p_queue, j.id, @schema@.wait_score(j.priority, j.lifo), now);
    n := n + 1;
  END LOOP;
  IF n > 0 THEN PERFORM @schema@.wake(p_queue); END IF;
  RETURN n;
END $$;

-- redrive-bulk.lua: the dead letters among p_ids re-driven.  returns {moved, withParent: [id]}
CREATE OR REPLACE FUNCTION @schema@.redrive_many(p_queue text, p_ids text[], p_reset boolean, p_delay bigint) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  i text;
  r jsonb;
  moved integer := 0;
  with_parent jsonb := '[]';
BEGIN
  FOREACH i IN ARRAY p_ids LOOP
    r := @schema@.redrive(p_queue, i, p_reset, p_delay);
    IF r->>'status' = 'redriven' THEN
      moved := moved + 1;
      IF EXISTS (SELECT 1 FROM @schema@.jobs WHERE queue = p_queue AND id = i AND parent_id IS NOT NULL) THEN with_parent := with_parent || to_jsonb(i); END IF;
    END IF;
  END LOOP;
  RETURN jsonb_build_object('moved', moved, 'withParent', with_parent);
END $$;
