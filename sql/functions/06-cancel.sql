-- cancel.lua: a waiting, delayed or waiting-children job is cancelled at once; an active one by request
-- (its holder hears it through its lease renewal and the ownership channel); a finished one is left.
--   returns {status: cancelled|requested|finished|unknown, state?, children: [{queue, id}] still pending}
CREATE OR REPLACE FUNCTION @schema@.cancel(p_queue text, p_id text) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  now bigint := @schema@.now_ms();
  j @schema@.jobs;
  children jsonb;
BEGIN
  SELECT * INTO j FROM @schema@.jobs WHERE queue = p_queue AND id = p_id FOR UPDATE;
  IF NOT FOUND THEN RETURN jsonb_build_object('status', 'unknown', 'children', '[]'::jsonb); END IF;
  SELECT coalesce(jsonb_agg(jsonb_build_object('queue', child_queue, 'id', child_id)), '[]') INTO children
    FROM @schema@.deps WHERE parent_queue = p_queue AND parent_id = p_id AND status = 'pending';
  IF j.state IN ('waiting', 'delayed', 'waiting-children') THEN
    PERFORM @schema@.cancelled(p_queue, p_id, now);
    RETURN jsonb_build_object('status', 'cancelled', 'children', children);
  END IF;
  IF j.state = 'active' THEN
    UPDATE @schema@.jobs SET cancel = true WHERE queue = p_queue AND id = p_id;
    PERFORM @schema@.announce_owner('cancel', p_queue, p_id, coalesce(j.token, ''));
    RETURN jsonb_build_object('status', 'requested', 'children', children);
  END IF;
  RETURN jsonb_build_object('status', 'finished', 'state', j.state, 'children', children);
END $$;

-- cancel-waiting.lua: the given jobs that still wait, cancelled in one call; true per id cancelled.
CREATE OR REPLACE FUNCTION @schema@.cancel_waiting(p_queue text, p_ids text[]) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  now bigint := @schema@.now_ms();
  i text;
  out jsonb := '[]';
BEGIN
  FOREACH i IN ARRAY p_ids LOOP
    PERFORM 1 FROM @schema@.jobs WHERE queue = p_queue AND id = i AND state = 'waiting' FOR UPDATE;
    IF FOUND THEN
      PERFORM @schema@.cancelled(p_queue, i, now);
      out := out || 'true'::jsonb;
    ELSE
      out := out || 'false'::jsonb;
    END IF;
  END LOOP;
  RETURN out;
END $$;

-- progress.lua, update-data.lua, log.lua: only the lease holder writes.
CREATE OR REPLACE FUNCTION @schema@.set_progress(p_queue text, p_id text, p_token text, p_progress text) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  UPDATE @schema@.jobs SET progress = p_progress WHERE queue = p_queue AND id = p_id AND token = p_token AND state = 'active';
  IF NOT FOUND THEN RETURN false; END IF;
  IF octet_length(p_progress) <= 1024 THEN
    PERFORM @schema@.emit(p_queue, 'progress', jsonb_build_object('jobId', p_id, 'progress', p_progress));
  ELSE
    PERFORM @schema@.emit(p_queue, 'progress', jsonb_build_object('jobId', p_id, 'size', octet_length(p_progress)));
  END IF;
  RETURN true;
END $$;

CREATE OR REPLACE FUNCTION @schema@.update_data(p_queue text, p_id text, p_token text, p_data text) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  UPDATE @schema@.jobs SET data = p_data WHERE queue = p_queue AND id = p_id AND token = p_token AND state = 'active';
  RETURN FOUND;
END $$;

CREATE OR REPLACE FUNCTION @schema@.log(p_queue text, p_id text, p_token text, p_line text, p_keep integer) RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  n integer;
BEGIN
  UPDATE @schema@.jobs SET logs = (logs || p_line)[greatest(1, cardinality(logs) + 2 - p_keep):]
   WHERE queue = p_queue AND id = p_id AND token = p_token AND state = 'active' RETURNING cardinality(logs) INTO n;
  RETURN n;
END $$;
