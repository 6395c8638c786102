-- pause.lua / resume.lua: claims stop / start again; resume wakes idle workers. True when the state changed.
CREATE OR REPLACE FUNCTION @schema@.pause(p_queue text) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  PERFORM @schema@.ensure_queue(p_queue);
  UPDATE @schema@.queues SET paused = true WHERE name = p_queue AND NOT paused;
  IF NOT FOUND THEN RETURN false; END IF;
  PERFORM @schema@.emit(p_queue, 'paused');
  RETURN true;
END $$;

CREATE OR REPLACE FUNCTION @schema@.resume(p_queue text) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  UPDATE @schema@.queues SET paused = false WHERE name = p_queue AND paused;
  IF NOT FOUND THEN RETURN false; END IF;
  PERFORM @schema@.emit(p_queue, 'resumed');
  PERFORM @schema@.wake(p_queue);
  RETURN true;
END $$;

-- pause-names.lua / resume-names.lua: jobs of a paused name stay waiting at their place and are not claimed.
CREATE OR REPLACE FUNCTION @schema@.pause_names(p_queue text, p_names text[]) RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  n text;
  added integer := 0;
BEGIN
  PERFORM @schema@.ensure_queue(p_queue);
  FOREACH n IN ARRAY p_names LOOP
    UPDATE @schema@.queues SET paused_names = array_append(paused_names, n) WHERE name = p_queue AND NOT (n = ANY (paused_names));
    IF FOUND THEN
      added := added + 1;
      PERFORM @schema@.emit(p_queue, 'paused', jsonb_build_object('name', n));
    END IF;
  END LOOP;
  RETURN added;
END $$;

CREATE OR REPLACE FUNCTION @schema@.resume_names(p_queue text, p_names text[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  n text;
BEGIN
  FOREACH n IN ARRAY p_names LOOP
    UPDATE @schema@.queues SET paused_names = array_remove(paused_names, n) WHERE name = p_queue AND n = ANY (paused_names);
    IF FOUND THEN PERFORM @schema@.emit(p_queue, 'resumed', jsonb_build_object('name', n)); END IF;
  END LOOP;
  PERFORM @schema@.wake(p_queue);
END $$;

-- pause-group.lua / resume-group.lua / group-limits.lua
CREATE OR REPLACE FUNCTION @schema@.pause_group(p_queue text, p_group text) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO @schema@.groups (queue, grp, paused) VALUES (p_queue, p_group, true)
  ON CONFLICT (queue, grp) DO UPDATE SET paused = true WHERE NOT @schema@.groups.paused;
  RETURN FOUND;
END $$;

CREATE OR REPLACE FUNCTION @schema@.resume_group(p_queue text, p_group text) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  UPDATE @schema@.groups SET paused = false WHERE queue = p_queue AND grp = p_group AND paused;
  IF NOT FOUND THEN RETURN false; END IF;
  PERFORM @schema@.group_ready(p_queue, p_group);
  PERFORM @schema@.wake(p_queue);
  RETURN true;
END $$;

-- p_limits: {concurrency?: n|null, rateLimit?: {max, duration}|null}; an absent key leaves the limit.
CREATE OR REPLACE FUNCTION @schema@.group_limits(p_queue text, p_group text, p_limits jsonb) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO @schema@.groups (queue, grp) VALUES (p_queue, p_group) ON CONFLICT (queue, grp) DO NOTHING;
  IF p_limits ? 'concurrency' THEN
    UPDATE @schema@.groups SET cap = (p_limits->>'concurrency')::integer WHERE queue = p_queue AND grp = p_group;
  END IF;
  IF p_limits ? 'rateLimit' THEN
    UPDATE @schema@.groups SET rl_max = (p_limits->'rateLimit'->>'max')::integer, rl_dur = (p_limits->'rateLimit'->>'duration')::bigint
     WHERE queue = p_queue AND grp = p_group;
  END IF;
  PERFORM @schema@.group_ready(p_queue, p_group);
  PERFORM @schema@.wake(p_queue);
END $$;

-- configure.lua: queue limits (null removes one, an absent key leaves it); idle workers hear of waiting jobs.
CREATE OR REPLACE FUNCTION @schema@.configure(p_queue text, p_limits jsonb) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM @schema@.ensure_queue(p_queue);
  IF p_limits ? 'rateLimit' THEN
    UPDATE @schema@.queues SET rl_max = (p_limits->'rateLimit'->>'max')::integer, rl_dur = (p_limits->'rateLimit'->>'duration')::bigint WHERE name = p_queue;
  END IF;
  IF p_limits ? 'concurrency' THEN UPDATE @schema@.queues SET gc = (p_limits->>'concurrency')::integer WHERE name = p_queue; END IF;
  IF p_limits ? 'groupConcurrency' THEN UPDATE @schema@.queues SET gcap = (p_limits->>'groupConcurrency')::integer WHERE name = p_queue; END IF;
  IF p_limits ? 'groupRateLimit' THEN
    UPDATE @schema@.queues SET grl_max = (p_limits->'groupRateLimit'->>'max')::integer, grl_dur = (p_limits->'groupRateLimit'->>'duration')::bigint WHERE name = p_queue;
  END IF;
  IF p_limits ? 'maxWaiting' THEN UPDATE @schema@.queues SET mw = (p_limits->>'maxWaiting')::integer WHERE name = p_queue; END IF;
  IF p_limits ? 'maxWaitingPerGroup' THEN UPDATE @schema@.queues SET mwg = (p_limits->>'maxWaitingPerGroup')::integer WHERE name = p_queue; END IF;
  IF p_limits ? 'events' THEN UPDATE @schema@.queues SET ev = (p_limits->>'events')::integer WHERE name = p_queue; END IF;
  PERFORM @schema@.groups_ready(p_queue);
  PERFORM @schema@.wake(p_queue);
END $$;
