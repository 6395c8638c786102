import { clusterForFile } from '../helpers/cluster-file.js';
// The flow specs (crash cases included) and the operations specs again, every
// harness store on a 3-master Redis Cluster started once for the file: the
// queues of a flow land on different masters and talk through their outboxes.
// Left out: queue-events (it kills connections through a single-node client
// of the run's Redis; events are tested in store.spec.ts) and throughput/groups
// (its 100,000-job verify() outlasts the hook timeout through a cluster
// client; the group scripts run in store.spec.ts).
import '../flows/tree.spec.js';
import '../flows/add-crash.spec.js';
import '../flows/cancel.spec.js';
import '../flows/concurrent.spec.js';
import '../flows/crash.spec.js';
import '../flows/policies.spec.js';
import '../flows/redrive.spec.js';
import '../flows/register-queue.spec.js';
import '../flows/wait.spec.js';
import '../ops/count-jobs.spec.js';
import '../ops/dead-letters.spec.js';
import '../throughput/backpressure.spec.js';

clusterForFile();
