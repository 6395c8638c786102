// spool: everything a Nest application writes code with, by name: the
// engine (lib/engine/index.ts, also the engine-only entry spool/engine) and
// the Nest module and the dashboard mounted in it. The Store contract types
// are on spool/store.

export * from './engine/index.js';
// Before the Nest module: a missing Nest peer is one clear error (lib/nest/peers.ts).
import './nest/peers.js';
export * from './nest/index.js';
export * from './dashboard/index.js';
