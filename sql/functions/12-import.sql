-- import.lua: jobs from another queue system enter with their history (attempts made, created and due when they
-- were, a dead letter with its error, a flow parent with its children's results); an id that names a job, or was
-- imported before, is left as it is.
--   p_jobs: [{id, name, data, opts, state, createdAt, runAt, attempt, maxAttempts, priority, lifo, rc, rf, parent?,
--             children?, results?: [{child, result}], failures?: [{child, failure}], finishedAt?, error?, result?}]
--   returns ['imported' | 'exists'] per job
CREATE OR REPLACE FUNCTION @schema@.import_jobs(p_queue text, p_jobs jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  now bigint := @schema@.now_ms();
  x jsonb;
  c jsonb;
  out jsonb := '[]';
  st text;
  woken boolean := false;
  earliest bigint;
BEGIN
  PERFORM @schema@.ensure_queue(p_queue);
  FOR x IN SELECT * FROM jsonb_array_elements(p_jobs) LOOP
    IF EXISTS (SELECT 1 FROM @schema@.imported WHERE queue = p_queue AND id = x->>'id')
       OR EXISTS (SELECT 1 FROM @schema@.jobs WHERE queue = p_queue AND id = x->>'id') THEN
      out := out || '"exists"'::jsonb;
      CONTINUE;
    END IF;
    st := x->>'state';
    INSERT INTO @schema@.jobs (queue, id, name, data, opts, state, attempt, max_attempts, created_at, run_at, priority, lifo, ws,
                               rc_count, rc_age, rf_count, rf_age, parent_queue, parent_id, parent_policy,
                               finished_at, reason, err_message, err_stack, err_code, result)
    VALUES (p_queue, x->>'id', x->>'name', x->>'data', x->>'opts', st, (x->>'attempt')::integer, (x->>'maxAttempts')::integer,
            (x->>'createdAt')::bigint, CASE WHEN st IN ('waiting', 'delayed') THEN (x->>'runAt')::bigint END,
            (x->>'priority')::integer, (x->>'lifo')::boolean,
            -- FIFO in the order given, whatever the job's lifo: the caller sends the old system's order.
            CASE WHEN st = 'waiting' THEN @schema@.wait_score((x->>'priority')::integer, false) END,
            (x->'rc'->>0)::integer, (x->'rc'->>1)::bigint, (x->'rf'->>0)::integer, (x->'rf'->>1)::bigint,
            x->'parent'->>'queue', x->'parent'->>'id', x->'parent'->>'policy',
            CASE WHEN st IN ('failed', 'completed') THEN coalesce((x->>'finishedAt')::bigint, now) END,
            CASE WHEN st = 'failed' THEN coalesce(x->'error'->>'reason', 'error') END,
            CASE WHEN st = 'failed' THEN coalesce(x->'error'->>'message', '') END,
            CASE WHEN st = 'failed' THEN coalesce(x->'error'->>'stack', '') END,
            CASE WHEN st = 'failed' THEN coalesce(x->'error'->>'code', '') END,
            CASE WHEN st = 'completed' THEN coalesce(x->>'result', 'null') END);
    FOR c IN SELECT * FROM jsonb_array_elements(coalesce(x->'children', '[]')) LOOP
      INSERT INTO @schema@.deps (parent_queue, parent_id, child_queue, child_id) VALUES (p_queue, x->>'id', c->>'queue', c->>'id')
      ON CONFLICT DO NOTHING;
    END LOOP;
    FOR c IN SELECT * FROM jsonb_array_elements(coalesce(x->'results', '[]')) LOOP
      INSERT INTO @schema@.deps (parent_queue, parent_id, child_queue, child_id, status, result)
      VALUES (p_queue, x->>'id', c->'child'->>'queue', c->'child'->>'id', 'completed', c->>'result')
      ON CONFLICT (parent_queue, parent_id, child_queue, child_id) DO UPDATE SET status = 'completed', result = EXCLUDED.result;
    END LOOP;
    FOR c IN SELECT * FROM jsonb_array_elements(coalesce(x->'failures', '[]')) LOOP
      INSERT INTO @schema@.deps (parent_queue, parent_id, child_queue, child_id, status, failure)
      VALUES (p_queue, x->>'id', c->'child'->>'queue', c->'child'->>'id', c->'failure'->>'state', c->'failure')
      ON CONFLICT (parent_queue, parent_id, child_queue, child_id) DO UPDATE SET failure = EXCLUDED.failure;
    END LOOP;
    INSERT INTO @schema@.imported (queue, id) VALUES (p_queue, x->>'id');
    PERFORM @schema@.emit(p_queue, 'added', jsonb_build_object('jobId', x->>'id', 'name', x->>'name', 'state', st));
    IF st = 'waiting' THEN woken := true; END IF;
    IF st = 'delayed' THEN earliest := least(coalesce(earliest, (x->>'runAt')::bigint), (x->>'runAt')::bigint); END IF;
    out := out || '"imported"'::jsonb;
  END LOOP;
  IF woken THEN PERFORM @schema@.wake(p_queue); END IF;
  IF earliest IS NOT NULL THEN PERFORM @schema@.announce_delayed(p_queue, greatest(0, earliest - now)); END IF;
  RETURN out;
END $$;
