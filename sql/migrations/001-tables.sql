-- Migration 1: the tables of a Spool schema (@schema@ is replaced by the schema name at migrate time).
-- One row per job in `jobs`, its state a column; partial indexes per state stand in for Redis's
-- sorted sets (waiting by wait score, delayed by run time, active by lease expiry, finished by time).

CREATE TABLE @schema@.queues (
  name text PRIMARY KEY,
  ids bigint NOT NULL DEFAULT 0,            -- the last id drawn by reserve_ids
  paused boolean NOT NULL DEFAULT false,
  paused_names text[] NOT NULL DEFAULT '{}',
  lu bigint NOT NULL DEFAULT 0,             -- throttled until (RateLimitedError), epoch ms
  rl_max integer, rl_dur bigint,            -- rate limit
  rlw bigint NOT NULL DEFAULT 0, rln integer NOT NULL DEFAULT 0,  -- rate window start and starts in it
  gc integer,                               -- global concurrency
  gcap integer,                             -- default group concurrency
  grl_max integer, grl_dur bigint,          -- default group rate limit
  mw integer, mwg integer,                  -- maxWaiting, maxWaitingPerGroup
  ev integer,                               -- event stream length: null default, 0 off
  rr integer NOT NULL DEFAULT 0             -- groups served since the ungrouped jobs' last turn (includes/claim-pop)
);

-- Wait scores: strict priority, FIFO (LIFO on request) by a sequence drawn at placing time. A sequence
-- rather than a counter on the queue row, so that an add inside a caller's transaction locks no shared row.
CREATE SEQUENCE @schema@.wait_seq;

CREATE TABLE @schema@.jobs (
  queue text NOT NULL,
  id text NOT NULL,
  name text NOT NULL,
  data text NOT NULL,
  opts text NOT NULL,
  state text NOT NULL,
  attempt integer NOT NULL DEFAULT 0,
  max_attempts integer NOT NULL,
  created_at bigint NOT NULL,
  run_at bigint,
  started_at bigint,
  finished_at bigint,
  deadline bigint NOT NULL DEFAULT 0,
  priority integer NOT NULL DEFAULT 0,
  lifo boolean NOT NULL DEFAULT false,
  ws bigint,                                -- wait score: its place while waiting, kept when handed back
  lease_until bigint,                       -- active: lease expiry
  stalled integer NOT NULL DEFAULT 0,
  claims integer NOT NULL DEFAULT 0,
  progress text,
  result text,
  err_message text, err_stack text, err_code text,
  reason text,
  token text,
  finished_token text,                      -- the token that finished the last attempt (retried calls answer "already")
  grp text,
  cancel boolean NOT NULL DEFAULT false,
  parent_queue text, parent_id text, parent_policy text,
  trace text,
  dedup_key text,                           -- held until the job finishes (dedup ttl 0)
  rc_count integer NOT NULL DEFAULT -1, rc_age bigint NOT NULL DEFAULT -1,
  rf_count integer NOT NULL DEFAULT -1, rf_age bigint NOT NULL DEFAULT -1,
  watched boolean NOT NULL DEFAULT false,
  logs text[] NOT NULL DEFAULT '{}',
  hold_until bigint,                        -- a scheduler's held tick: not promoted before this (its runAt kept)
  PRIMARY KEY (queue, id)
);
CREATE INDEX jobs_waiting ON @schema@.jobs (queue, ws) WHERE state = 'waiting';
CREATE INDEX jobs_delayed ON @schema@.jobs (queue, run_at) WHERE state = 'delayed';
CREATE INDEX jobs_active ON @schema@.jobs (queue, lease_until) WHERE state = 'active';
CREATE INDEX jobs_finished ON @schema@.jobs (queue, state, finished_at) WHERE state IN ('completed', 'failed', 'cancelled');
CREATE INDEX jobs_waiting_children ON @schema@.jobs (queue, created_at) WHERE state = 'waiting-children';
CREATE INDEX jobs_group_active ON @schema@.jobs (queue, grp) WHERE state = 'active' AND grp IS NOT NULL;
CREATE INDEX jobs_group_waiting ON @schema@.jobs (queue, grp, ws) WHERE state = 'waiting' AND grp IS NOT NULL;

CREATE TABLE @schema@.groups (
  queue text NOT NULL,
  grp text NOT NULL,
  paused boolean NOT NULL DEFAULT false,
  cap integer,
  rl_max integer, rl_dur bigint,
  rlw bigint NOT NULL DEFAULT 0, rln integer NOT NULL DEFAULT 0,
  reopen bigint,                            -- waiting for its rate window to reopen (Redis: glimited)
  PRIMARY KEY (queue, grp)
);

-- The ring of groups served round-robin (includes/groups): a group is in it while it has waiting jobs and may start
-- one more; claims take the head (lowest pos) and rotate it to the tail. A row per group, so an add that puts its
-- group in the ring locks that row only, never the queue's.
CREATE SEQUENCE @schema@.ring_seq;
CREATE TABLE @schema@.ring (
  queue text NOT NULL,
  grp text NOT NULL,
  pos bigint NOT NULL,
  PRIMARY KEY (queue, grp)
);
CREATE INDEX ring_pos ON @schema@.ring (queue, pos);

CREATE TABLE @schema@.dedup (
  queue text NOT NULL,
  key text NOT NULL,
  job_id text NOT NULL,
  expires_at bigint,                        -- null: until the job finishes
  PRIMARY KEY (queue, key)
);

CREATE TABLE @schema@.once (
  queue text NOT NULL,
  key text NOT NULL,
  outcome text NOT NULL,
  expires_at bigint NOT NULL,
  PRIMARY KEY (queue, key)
);

CREATE TABLE @schema@.workers (
  queue text NOT NULL,
  id text NOT NULL,
  info jsonb NOT NULL,
  seen_at bigint NOT NULL,
  PRIMARY KEY (queue, id)
);

-- Flow edges: a parent's children, each pending until its outcome arrives (child-done).
CREATE TABLE @schema@.deps (
  parent_queue text NOT NULL,
  parent_id text NOT NULL,
  child_queue text NOT NULL,
  child_id text NOT NULL,
  status text NOT NULL DEFAULT 'pending',   -- pending | completed | failed | cancelled
  result text,
  failure jsonb,
  PRIMARY KEY (parent_queue, parent_id, child_queue, child_id)
);

-- The event stream QueueEvents reads, bounded per queue by trimming in promote().
-- Event ids are "<ms>-<seq>" as on Redis streams: seq orders them, ms is the time written.
CREATE TABLE @schema@.events (
  seq bigserial PRIMARY KEY,
  queue text NOT NULL,
  ms bigint NOT NULL,
  fields jsonb NOT NULL
);
CREATE INDEX events_queue ON @schema@.events (queue, seq);

-- Per-minute counters (lua/includes/metrics): one row per queue, minute and field, the same fields as on Redis
-- (h<k>, hn, ms, f, d, r, s, each also with ':<name>' for a job name holding one of the queue's 20 slots).
-- Minutes older than 62 are deleted by promote().
CREATE TABLE @schema@.metrics (
  queue text NOT NULL,
  minute bigint NOT NULL,
  field text NOT NULL,
  n bigint NOT NULL,
  PRIMARY KEY (queue, minute, field)
);

CREATE TABLE @schema@.metric_names (
  queue text NOT NULL,
  name text NOT NULL,
  minute bigint NOT NULL,                   -- the last minute the name was counted in
  PRIMARY KEY (queue, name)
);

-- Cron and every-N schedulers (lua/includes/schedulers): the pending tick is a delayed job <id>:<tick ms>;
-- `due` is when promote() looks at the scheduler next (null: never, it ended).
CREATE TABLE @schema@.schedulers (
  queue text NOT NULL,
  id text NOT NULL,
  spec text NOT NULL,
  kind text NOT NULL,
  every bigint NOT NULL,
  anchor bigint NOT NULL,
  stop bigint NOT NULL,                     -- endAt, 0 = none
  lim integer NOT NULL,                     -- limit, 0 = none
  missed text NOT NULL,
  tpl jsonb NOT NULL,                       -- the job every tick copies (as add() reads a job)
  times bigint[] NOT NULL DEFAULT '{}',     -- cron: tick times after the pending one
  count integer NOT NULL DEFAULT 0,
  skipped integer NOT NULL DEFAULT 0,
  next bigint,
  starved boolean NOT NULL DEFAULT false,
  paused boolean NOT NULL DEFAULT false,    -- stopped by pause() until resume(): no pending tick
  last text,
  last_at bigint,
  due bigint,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  PRIMARY KEY (queue, id)
);
CREATE INDEX schedulers_due ON @schema@.schedulers (queue, due);

-- Ids ever imported (lua/import.lua's `imported` set): an import run again skips them, even once the job is gone.
CREATE TABLE @schema@.imported (
  queue text NOT NULL,
  id text NOT NULL,
  PRIMARY KEY (queue, id)
);

-- Events trimmed so far per queue (StreamInfo.added = trimmed + retained): a row of its own, written only by the one
-- transaction trimming the queue's stream at a time, so trims never wait on (or hold) the queue row.
CREATE TABLE @schema@.event_trims (
  queue text PRIMARY KEY,
  n bigint NOT NULL
);
