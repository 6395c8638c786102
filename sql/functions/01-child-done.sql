-- child-done.lua: a flow child's outcome applied to its parent, in the same transaction as the child's
-- move (one database: no outbox is needed, unlike Redis, where a flow spans hash slots).
--   completed: its result recorded; the last pending child moves the parent to waiting.
--   failed / cancelled: by the child's policy: fail (the parent dead-letters, reason child-failed),
--   continue (the parent starts now), ignore (recorded, counts as done), remove (forgotten, counts as done).
CREATE OR REPLACE FUNCTION @schema@.child_done(c @schema@.jobs, p_now bigint) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  p @schema@.jobs;
  pol text := coalesce(c.parent_policy, 'fail');
  fail_rec jsonb;
  what text;
BEGIN
  -- The parent is locked only while a child's outcome can move it (waiting on its children, or dead for one): a
  -- started parent is waiting and claimable, and a claim skips (SKIP LOCKED) a row this lock holds, so a sibling's
  -- late completion would hide the parent from the very claim its wake-up sent. Concurrent siblings still take
  -- turns on a waiting-children parent; one that waited re-reads the row and finds it started, unlocked.
  SELECT * INTO p FROM @schema@.jobs WHERE queue = c.parent_queue AND id = c.parent_id
     AND state IN ('waiting-children', 'failed') FOR UPDATE;
  IF NOT FOUND THEN
    SELECT * INTO p FROM @schema@.jobs WHERE queue = c.parent_queue AND id = c.parent_id;
    IF NOT FOUND THEN RETURN; END IF;
  END IF;
  IF c.state = 'completed' THEN
    UPDATE @schema@.deps SET status = 'completed', result = c.result, failure = NULL
     WHERE parent_queue = p.queue AND parent_id = p.id AND child_queue = c.queue AND child_id = c.id;
  ELSE
    fail_rec := jsonb_build_object('state', c.state, 'reason', coalesce(c.reason, ''), 'message', coalesce(c.err_message, ''), 'policy', pol);
    IF pol = 'remove' THEN
      DELETE FROM @schema@.deps WHERE parent_queue = p.queue AND parent_id = p.id AND child_queue = c.queue AND child_id = c.id;
    ELSIF pol = 'fail' AND c.state = 'failed' AND (p.state = 'waiting-children' OR (p.state = 'failed' AND p.reason = 'child-failed')) THEN
      -- The parent still waits on a dead child under the fail policy: it stays pending (a redrive of the child resumes the parent).
      UPDATE @schema@.deps SET failure = fail_rec
       WHERE parent_queue = p.queue AND parent_id = p.id AND child_queue = c.queue AND child_id = c.id;
    ELSE
      UPDATE @schema@.deps SET status = c.state, failure = fail_rec
       WHERE parent_queue = p.queue AND parent_id = p.id AND child_queue = c.queue AND child_id = c.id;
    END IF;
    IF pol = 'fail' AND p.state = 'waiting-children' THEN
      what := CASE WHEN c.state = 'cancelled' THEN 'was cancelled' ELSE format('died (%s): %s', coalesce(c.reason, ''), coalesce(c.err_message, '')) END;
      PERFORM @schema@.dead_letter(p.queue, p.id, 'child-failed', format('child %s of queue %s %s', c.id, c.queue, what), '', 'ChildFailedError', p_now);
      PERFORM @schema@.metric_dead(p.queue, p_now, p.name);
      RETURN;
    END IF;
    IF pol = 'continue' AND p.state = 'waiting-children' THEN
      PERFORM @schema@.start_parent(p.queue, p.id, p_now);
      RETURN;
    END IF;
  END IF;
  IF p.state = 'waiting-children' AND NOT EXISTS (
       SELECT 1 FROM @schema@.deps WHERE parent_queue = p.queue AND parent_id = p.id AND status = 'pending') THEN
    PERFORM @schema@.start_parent(p.queue, p.id, p_now);
  END IF;
END $$;

CREATE OR REPLACE FUNCTION @schema@.start_parent(p_queue text, p_id text, p_now bigint) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  p @schema@.jobs;
BEGIN
  SELECT * INTO p FROM @schema@.jobs WHERE queue = p_queue AND id = p_id;
  IF p.state <> 'waiting-children' THEN RETURN; END IF;
  UPDATE @schema@.jobs SET run_at = p_now WHERE queue = p_queue AND id = p_id;
  IF @schema@.place(p_queue, p_id, @schema@.wait_score(p.priority, p.lifo), p_now) THEN PERFORM @schema@.wake(p_queue); END IF;
END $$;
