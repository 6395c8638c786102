import { cpSync, mkdirSync, readdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './consumer.js';

/**
 * Installs the built package (dist/, which global-setup keeps up to date)
 * into `dir`/node_modules/spool, and every package of the repository's
 * node_modules beside it except `without` (names, or scopes such as
 * '@nestjs'): an app that lacks exactly those peers, in a second and with
 * no registry. Spool is copied, not linked, so Node resolves its imports
 * from `dir` (a link would resolve them from the repository, where every
 * peer is installed); the others are links.
 */
export function installBuilt(dir: string, without: readonly string[]): void {
  const modules = join(dir, 'node_modules');
  const spool = join(modules, 'spool');
  mkdirSync(spool, { recursive: true });
  cpSync(join(ROOT, 'package.json'), join(spool, 'package.json'));
  cpSync(join(ROOT, 'dist'), join(spool, 'dist'), { recursive: true });
  const left = (name: string): boolean => !without.some((w) => name === w || name.startsWith(`${w}/`));
  for (const entry of readdirSync(join(ROOT, 'node_modules'))) {
    if (entry.startsWith('.') || entry === 'spool') continue;
    const names = entry.startsWith('@') ? readdirSync(join(ROOT, 'node_modules', entry)).map((n) => `${entry}/${n}`) : [entry];
    for (const name of names.filter(left)) {
      mkdirSync(join(modules, name, '..'), { recursive: true });
      symlinkSync(join(ROOT, 'node_modules', name), join(modules, name), 'dir');
    }
  }
}
