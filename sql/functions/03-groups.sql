-- includes/groups: fair service between groups (tenants), a ring of the groups that may start a job.

-- spool_group_ready: into the ring when it can be served (not paused, under its cap, rate window open, jobs waiting)
-- and is not queued already; true when it joined now.
-- Lock order: the queue row before ring rows, as claim() takes them, so a worker's transition and a claim never
-- deadlock. p_lock false: an add, which may run in the caller's long transaction, takes no queue lock (it only
-- inserts its group's ring row, which no claim waits on before it commits).
CREATE OR REPLACE FUNCTION @schema@.group_ready(p_queue text, p_grp text, p_lock boolean DEFAULT true) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  g @schema@.groups;
  cap integer;
BEGIN
  IF p_grp IS NULL THEN RETURN false; END IF;
  IF p_lock THEN PERFORM 1 FROM @schema@.queues WHERE name = p_queue FOR UPDATE; END IF;
  IF EXISTS (SELECT 1 FROM @schema@.ring WHERE queue = p_queue AND grp = p_grp) THEN RETURN false; END IF;
  SELECT * INTO g FROM @schema@.groups WHERE queue = p_queue AND grp = p_grp;
  IF g.paused OR g.reopen IS NOT NULL THEN RETURN false; END IF;
  cap := coalesce(g.cap, (SELECT gcap FROM @schema@.queues WHERE name = p_queue), 0);
  -- token IS NOT NULL: a job leaving active (leave_active) no longer holds its slot.
  IF cap > 0 AND (SELECT count(*) FROM @schema@.jobs WHERE queue = p_queue AND grp = p_grp AND state = 'active' AND token IS NOT NULL) >= cap THEN RETURN false; END IF;
  IF NOT EXISTS (SELECT 1 FROM @schema@.jobs WHERE queue = p_queue AND grp = p_grp AND state = 'waiting') THEN RETURN false; END IF;
  INSERT INTO @schema@.ring (queue, grp, pos) VALUES (p_queue, p_grp, nextval('@schema@.ring_seq')) ON CONFLICT DO NOTHING;
  RETURN FOUND;
END $$;

-- Every group of the queue that may be served again (resume, new limits).
CREATE OR REPLACE FUNCTION @schema@.groups_ready(p_queue text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  gid text;
BEGIN
  FOR gid IN SELECT DISTINCT grp FROM @schema@.jobs WHERE queue = p_queue AND state = 'waiting' AND grp IS NOT NULL LOOP
    PERFORM @schema@.group_ready(p_queue, gid);
  END LOOP;
END $$;

-- spool_groups_reopen: groups whose rate window reopened go back to the ring.
CREATE OR REPLACE FUNCTION @schema@.groups_reopen(p_queue text, p_now bigint) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  gid text;
BEGIN
  FOR gid IN UPDATE @schema@.groups SET reopen = NULL WHERE queue = p_queue AND reopen <= p_now RETURNING grp LOOP
    PERFORM @schema@.group_ready(p_queue, gid);
  END LOOP;
END $$;

-- includes/claim-pop spool_pop (the grouped part): the next group in turn and its head job, rotating the ring; groups
-- that can take no more leave it. Returns {id, grp, allow, reopen, fresh, rated, cap, active} or null (no group served).
CREATE OR REPLACE FUNCTION @schema@.pop_group(p_queue text, p_now bigint, p_paused_names text[], p_skip text[]) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  r @schema@.ring;
  g @schema@.groups;
  q @schema@.queues;
  turns integer;
  cap integer; active integer; lim_max integer; lim_dur bigint;
  allow integer; g_reopen bigint; fresh boolean;
  jid text;
BEGIN
  SELECT * INTO q FROM @schema@.queues WHERE name = p_queue;
  SELECT count(*) INTO turns FROM @schema@.ring WHERE queue = p_queue;
  WHILE turns > 0 LOOP
    turns := turns - 1;
    SELECT * INTO r FROM @schema@.ring WHERE queue = p_queue ORDER BY pos LIMIT 1;
    EXIT WHEN NOT FOUND;
    UPDATE @schema@.ring SET pos = nextval('@schema@.ring_seq') WHERE queue = p_queue AND grp = r.grp;
    SELECT * INTO g FROM @schema@.groups WHERE queue = p_queue AND grp = r.grp;
    cap := coalesce(g.cap, q.gcap, 0);
    active := (SELECT count(*) FROM @schema@.jobs WHERE queue = p_queue AND grp = r.grp AND state = 'active' AND token IS NOT NULL);
    lim_max := coalesce(g.rl_max, q.grl_max);
    lim_dur := coalesce(g.rl_dur, q.grl_dur);
    IF lim_max IS NULL THEN allow := 1000000000; g_reopen := 0; fresh := false;
    ELSIF p_now >= coalesce(g.rlw, 0) + lim_dur THEN allow := lim_max; g_reopen := p_now + lim_dur; fresh := true;
    ELSE allow := lim_max - g.rln; g_reopen := g.rlw + lim_dur; fresh := false; END IF;
    IF coalesce(g.paused, false) OR (cap > 0 AND active >= cap) THEN
      DELETE FROM @schema@.ring WHERE queue = p_queue AND grp = r.grp;
    ELSIF allow <= 0 THEN
      DELETE FROM @schema@.ring WHERE queue = p_queue AND grp = r.grp;
      INSERT INTO @schema@.groups (queue, grp, reopen) VALUES (p_queue, r.grp, g_reopen) ON CONFLICT (queue, grp) DO UPDATE SET reopen = EXCLUDED.reopen;
    ELSE
      SELECT id INTO jid FROM @schema@.jobs WHERE queue = p_queue AND state = 'waiting' AND grp = r.grp
         AND NOT (name = ANY (p_paused_names)) AND NOT (id = ANY (p_skip)) ORDER BY ws LIMIT 1 FOR UPDATE SKIP LOCKED;
      IF jid IS NOT NULL THEN
        RETURN jsonb_build_object('id', jid, 'grp', r.grp, 'allow', allow, 'reopen', g_reopen, 'fresh', fresh, 'rated', lim_max IS NOT NULL, 'cap', cap, 'active', active);
      END IF;
      DELETE FROM @schema@.ring WHERE queue = p_queue AND grp = r.grp;
    END IF;
  END LOOP;
  RETURN NULL;
END $$;

-- spool_group_started: count the start in the group's rate window; out of the ring when it can take no more.
CREATE OR REPLACE FUNCTION @schema@.group_started(p_queue text, p_pick jsonb, p_now bigint) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  gid text := p_pick->>'grp';
BEGIN
  IF (p_pick->>'rated')::boolean THEN
    INSERT INTO @schema@.groups (queue, grp, rlw, rln) VALUES (p_queue, gid, p_now, 1)
    ON CONFLICT (queue, grp) DO UPDATE SET
      rlw = CASE WHEN (p_pick->>'fresh')::boolean THEN p_now ELSE @schema@.groups.rlw END,
      rln = CASE WHEN (p_pick->>'fresh')::boolean THEN 1 ELSE @schema@.groups.rln + 1 END;
  END IF;
  IF (p_pick->>'allow')::integer - 1 <= 0 THEN
    DELETE FROM @schema@.ring WHERE queue = p_queue AND grp = gid;
    INSERT INTO @schema@.groups (queue, grp, reopen) VALUES (p_queue, gid, (p_pick->>'reopen')::bigint)
    ON CONFLICT (queue, grp) DO UPDATE SET reopen = EXCLUDED.reopen;
  ELSIF ((p_pick->>'cap')::integer > 0 AND (p_pick->>'active')::integer + 1 >= (p_pick->>'cap')::integer)
        OR NOT EXISTS (SELECT 1 FROM @schema@.jobs WHERE queue = p_queue AND grp = gid AND state = 'waiting') THEN
    DELETE FROM @schema@.ring WHERE queue = p_queue AND grp = gid;
  END IF;
END $$;
