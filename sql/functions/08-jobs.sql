-- redrive.lua (includes/redrive): a dead letter back to waiting (or waiting-children while children are pending,
-- or delayed by p_delay), attempts reset on request; a flow parent failed by it is told.
--   returns {status: redriven|not-failed|unknown, state?}
CREATE OR REPLACE FUNCTION @schema@.redrive(p_queue text, p_id text, p_reset boolean, p_delay bigint) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  now bigint := @schema@.now_ms();
  j @schema@.jobs;
  st text;
BEGIN
  SELECT * INTO j FROM @schema@.jobs WHERE queue = p_queue AND id = p_id FOR UPDATE;
  IF NOT FOUND THEN RETURN jsonb_build_object('status', 'unknown'); END IF;
  IF j.state <> 'failed' THEN RETURN jsonb_build_object('status', 'not-failed', 'state', j.state); END IF;
  UPDATE @schema@.jobs SET finished_at = NULL, err_message = NULL, err_stack = NULL, err_code = NULL, reason = NULL, finished_token = NULL,
         attempt = CASE WHEN p_reset THEN 0 ELSE attempt END, stalled = CASE WHEN p_reset THEN 0 ELSE stalled END, run_at = now
   WHERE queue = p_queue AND id = p_id;
  IF EXISTS (SELECT 1 FROM @schema@.deps WHERE parent_queue = p_queue AND parent_id = p_id AND status = 'pending') THEN
    st := 'waiting-children';
    UPDATE @schema@.jobs SET state = st WHERE queue = p_queue AND id = p_id;
  ELSIF p_delay > 0 THEN
    st := 'delayed';
    UPDATE @schema@.jobs SET state = st, run_at = now + p_delay WHERE queue = p_queue AND id = p_id;
    PERFORM @schema@.announce_delayed(p_queue, p_delay);
  ELSE
    st := 'waiting';
    IF @schema@.place(p_queue, p_id, @schema@.wait_score(j.priority, j.lifo), now) THEN PERFORM @schema@.wake(p_queue); END IF;
  END IF;
  IF j.dedup_key IS NOT NULL THEN
    INSERT INTO @schema@.dedup (queue, key, job_id) VALUES (p_queue, j.dedup_key, p_id) ON CONFLICT DO NOTHING;
  END IF;
  IF j.parent_id IS NOT NULL THEN
    UPDATE @schema@.deps SET status = 'pending', failure = NULL
     WHERE parent_queue = j.parent_queue AND parent_id = j.parent_id AND child_queue = p_queue AND child_id = p_id;
    PERFORM @schema@.parent_redriven(j.parent_queue, j.parent_id, now);
  END IF;
  PERFORM @schema@.emit(p_queue, 'redriven', jsonb_build_object('jobId', p_id, 'state', st));
  RETURN jsonb_build_object('status', 'redriven', 'state', st);
END $$;

-- child-done.lua's `redriven`: a parent dead-lettered by its children waits for them again once no child
-- under the fail policy is dead any more.
CREATE OR REPLACE FUNCTION @schema@.parent_redriven(p_queue text, p_id text, p_now bigint) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  p @schema@.jobs;
BEGIN
  SELECT * INTO p FROM @schema@.jobs WHERE queue = p_queue AND id = p_id FOR UPDATE;
  IF NOT FOUND OR p.state <> 'failed' OR p.reason IS DISTINCT FROM 'child-failed' THEN RETURN; END IF;
  IF EXISTS (SELECT 1 FROM @schema@.deps WHERE parent_queue = p_queue AND parent_id = p_id AND failure IS NOT NULL
              AND failure->>'policy' = 'fail') THEN RETURN; END IF;
  UPDATE @schema@.jobs SET state = 'waiting-children', finished_at = NULL, err_message = NULL, err_stack = NULL, err_code = NULL, reason = NULL
   WHERE queue = p_queue AND id = p_id;
  PERFORM @schema@.emit(p_queue, 'redriven', jsonb_build_object('jobId', p_id, 'state', 'waiting-children'));
  IF NOT EXISTS (SELECT 1 FROM @schema@.deps WHERE parent_queue = p_queue AND parent_id = p_id AND status = 'pending') THEN
    PERFORM @schema@.start_parent(p_queue, p_id, p_now);
  END IF;
END $$;

-- remove.lua: a finished job goes (its flow edges too); refused while it runs or waits, or while it has children pending.
--   returns {status: removed|not-finished|children-pending|unknown, state?, pending?}
CREATE OR REPLACE FUNCTION @schema@.remove(p_queue text, p_id text) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  j @schema@.jobs;
  pending integer;
BEGIN
  SELECT * INTO j FROM @schema@.jobs WHERE queue = p_queue AND id = p_id FOR UPDATE;
  IF NOT FOUND THEN RETURN jsonb_build_object('status', 'unknown'); END IF;
  IF j.state NOT IN ('completed', 'failed', 'cancelled') THEN RETURN jsonb_build_object('status', 'not-finished', 'state', j.state); END IF;
  SELECT count(*) INTO pending FROM @schema@.deps WHERE parent_queue = p_queue AND parent_id = p_id AND status = 'pending';
  IF pending > 0 THEN RETURN jsonb_build_object('status', 'children-pending', 'pending', pending); END IF;
  DELETE FROM @schema@.deps WHERE parent_queue = p_queue AND parent_id = p_id;
  DELETE FROM @schema@.jobs WHERE queue = p_queue AND id = p_id;
  PERFORM @schema@.emit(p_queue, 'removed', jsonb_build_object('jobId', p_id, 'state', j.state));
  RETURN jsonb_build_object('status', 'removed');
END $$;

-- watch.lua: the job's finish is announced on the done channel from now on; resolves its state (null: unknown).
CREATE OR REPLACE FUNCTION @schema@.watch(p_queue text, p_id text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  st text;
BEGIN
  UPDATE @schema@.jobs SET watched = true WHERE queue = p_queue AND id = p_id RETURNING state INTO st;
  RETURN st;
END $$;

-- flow-add.lua + flow-commit.lua in one transaction: every node of the tree, across queues, written whole, or
-- refused whole when an id is taken (nothing is kept).
--   p_nodes: [{queue, job: <as add>, parent?: {queue, id, policy}, children: [{queue, id}]}]
--   returns {status: added, createdAt} | {status: duplicate, queue, id}
CREATE OR REPLACE FUNCTION @schema@.add_flow(p_nodes jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  now bigint := @schema@.now_ms();
  x jsonb;
  c jsonb;
  st text;
  delay bigint;
BEGIN
  FOR x IN SELECT * FROM jsonb_array_elements(p_nodes) LOOP
    IF EXISTS (SELECT 1 FROM @schema@.jobs WHERE queue = x->>'queue' AND id = x->'job'->>'id') THEN
      RETURN jsonb_build_object('status', 'duplicate', 'queue', x->>'queue', 'id', x->'job'->>'id');
    END IF;
  END LOOP;
  FOR x IN SELECT * FROM jsonb_array_elements(p_nodes) LOOP
    PERFORM @schema@.ensure_queue(x->>'queue');
    delay := (x->'job'->>'delay')::bigint;
    st := CASE WHEN jsonb_array_length(x->'children') > 0 THEN 'waiting-children' WHEN delay > 0 THEN 'delayed' ELSE 'waiting' END;
    INSERT INTO @schema@.jobs (queue, id, name, data, opts, state, max_attempts, created_at, run_at, deadline, priority, lifo, ws,
                               grp, trace, rc_count, rc_age, rf_count, rf_age, parent_queue, parent_id, parent_policy)
    VALUES (x->>'queue', x->'job'->>'id', x->'job'->>'name', x->'job'->>'data', x->'job'->>'opts', st, (x->'job'->>'maxAttempts')::integer,
            now, CASE WHEN st = 'waiting-children' THEN NULL ELSE now + greatest(delay, 0) END, (x->'job'->>'deadline')::bigint,
            (x->'job'->>'priority')::integer, (x->'job'->>'lifo')::boolean,
            CASE WHEN st = 'waiting' THEN @schema@.wait_score((x->'job'->>'priority')::integer, (x->'job'->>'lifo')::boolean) END,
            x->'job'->>'group', x->'job'->>'trace',
            (x->'job'->'rc'->>0)::integer, (x->'job'->'rc'->>1)::bigint, (x->'job'->'rf'->>0)::integer, (x->'job'->'rf'->>1)::bigint,
            x->'parent'->>'queue', x->'parent'->>'id', x->'parent'->>'policy');
    FOR c IN SELECT * FROM jsonb_array_elements(x->'children') LOOP
      INSERT INTO @schema@.deps (parent_queue, parent_id, child_queue, child_id) VALUES (x->>'queue', x->'job'->>'id', c->>'queue', c->>'id');
    END LOOP;
    IF st = 'waiting' AND x->'job'->>'group' IS NOT NULL THEN PERFORM @schema@.group_ready(x->>'queue', x->'job'->>'group', false); END IF;
    PERFORM @schema@.emit(x->>'queue', 'added', jsonb_build_object('jobId', x->'job'->>'id', 'name', x->'job'->>'name', 'state', st));
    IF st = 'delayed' THEN
      PERFORM @schema@.emit(x->>'queue', 'delayed', jsonb_build_object('jobId', x->'job'->>'id', 'delay', delay, 'runAt', now + delay));
      PERFORM @schema@.announce_delayed(x->>'queue', delay);
    ELSIF st = 'waiting' THEN
      PERFORM @schema@.wake(x->>'queue');
    END IF;
  END LOOP;
  RETURN jsonb_build_object('status', 'added', 'createdAt', now);
END $$;
