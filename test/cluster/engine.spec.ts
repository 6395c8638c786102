import { clusterForFile } from '../helpers/cluster-file.js';
// The engine specs again, every harness store on a 3-master Redis Cluster
// started once for the file (replicas and failover: failover.spec.ts).
// Left out: retention-paging, wake and store (they open single-node clients
// of their own to the run's Redis) and retry (its deadlines of 150-200 ms
// are missed on a loaded 2-core machine; fail.lua runs in worker and errors)
// and delayed (due within 100 ms; promote.lua runs in schedulers).
import '../engine/worker.spec.js';
import '../engine/cancel.spec.js';
import '../engine/errors.spec.js';
import '../engine/idempotency.spec.js';
import '../engine/lease-loss.spec.js';
import '../engine/logs.spec.js';
import '../engine/metrics.spec.js';
import '../engine/name-caps.spec.js';
import '../engine/noscript.spec.js';
import '../engine/schedulers.spec.js';
import '../engine/shutdown.spec.js';
import '../engine/timeout.spec.js';
import '../engine/update-data.spec.js';
import '../engine/worker-pause.spec.js';
import '../engine/batch.spec.js';

clusterForFile();
