import type * as Pg from 'pg';
import { PostgresPeerMissingError } from './errors.js';

export type PgModule = typeof Pg;

/**
 * `pg` is an optional peer: imported on first use only (a dynamic import
 * works from the ESM and CommonJS builds alike), so an app on Redis never
 * loads it, nor needs it installed.
 */
let pg: Promise<PgModule> | undefined;

export function loadPg(): Promise<PgModule> {
  pg ??= import('pg')
    // node-postgres is CommonJS: from ESM its exports may sit under `default`.
    .then((m) => {
      const mod = m as unknown as PgModule & { default?: PgModule };
      return typeof mod.Pool === 'function' ? mod : mod.default!;
    })
    .catch((err: unknown) => {
      pg = undefined;
      throw new PostgresPeerMissingError(err);
    });
  return pg;
}
