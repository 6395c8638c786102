import { PeerMissingError } from '../common/errors.js';

/** What the `spool` entry point loads besides the engine (Nest 11 or 12 with its own peers). */
export const NEST_PEERS = ['@nestjs/common', '@nestjs/core', 'reflect-metadata', 'rxjs'] as const;

/**
 * The Nest peers `resolve` cannot find, as one PeerMissingError naming
 * them, the install command and `spool/engine` for apps without Nest; none
 * missing: undefined.
 */
export function missingNestPeers(resolve: (name: string) => unknown): PeerMissingError | undefined {
  const missing = NEST_PEERS.filter((name) => {
    try {
      resolve(name);
      return false;
    } catch {
      return true;
    }
  });
  if (missing.length === 0) return undefined;
  return new PeerMissingError(
    missing,
    `spool needs the Nest peer${missing.length > 1 ? 's' : ''} ${missing.join(', ')}, not installed: npm install ${missing.join(' ')}` +
      " (an app without Nest imports 'spool/engine', which needs none of them)",
  );
}

// NOTE: runs when lib/index.ts loads this file, before it loads the Nest
// module. The package's CommonJS build (which its ES module entry wraps) has
// `require` here and stops with one sentence instead of Node's bare "Cannot
// find module '@nestjs/common'" from deep inside Spool. ES modules (the tests)
// link every import before any code runs, and have no `require`: no check.
if (typeof require === 'function' && typeof require.resolve === 'function') {
  const error = missingNestPeers(require.resolve);
  if (error) throw error;
}
