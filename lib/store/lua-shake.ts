import { SpoolError } from '../common/errors.js';

/**
 * Drops the definitions of included Lua files that a script never reaches.
 *
 * Why: a script runs its whole source on every call, so each `local function`
 * of its includes is a closure built per call, used or not. The add, which
 * includes the claim for its push, defined about 80 of them (86k of its 273k
 * Redis instructions per call, `npm run bench:lone-add`); most are never
 * reached from its body.
 *
 * What: an include's top level is a header comment, `--- @include` lines,
 * one-line `local NAME[, NAME] = ...` constants and `local function NAME(`
 * blocks that end at a column-0 `end` or on their own line (the layout every file of lua/includes
 * keeps; a block without its `end` is refused). Each definition is kept when
 * a kept piece names it: the script's own text and every other top-level line
 * are kept as they are, and what they name keeps what it names in turn.
 * Names are matched as identifiers anywhere outside full-line comments, so a
 * mention in a string or a trailing comment keeps a definition (harmless); a
 * definition is never dropped while something can still call it.
 */

/** A run of lines: `defines` lists what it declares when it may be dropped. */
export interface LuaPiece {
  readonly text: string;
  readonly defines?: readonly string[];
}

/** An include breaks the top-level layout the shaker relies on. */
export class LuaLayoutError extends SpoolError {
  constructor(file: string, line: number, message: string) {
    super(`lua/${file}.lua line ${line}: ${message}`);
  }
}

const FUNCTION = /^local function ([A-Za-z_][A-Za-z0-9_]*)\s*\(/;
const CONSTANT = /^local ([A-Za-z_][A-Za-z0-9_]*(?:\s*,\s*[A-Za-z_][A-Za-z0-9_]*)*)\s*=/;
const IDENTIFIER = /[A-Za-z_][A-Za-z0-9_]*/g;

/**
 * Splits an include's text (its own lines, nested includes already replaced by
 * their pieces) into pieces. Comment lines right above a definition go with it.
 */
export function includePieces(file: string, lines: readonly string[]): LuaPiece[] {
  const pieces: LuaPiece[] = [];
  let kept: string[] = [];
  let comments: string[] = [];
  const flush = () => {
    if (kept.length > 0) pieces.push({ text: kept.join('\n') });
    kept = [];
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.startsWith('--[[')) {
      // A block comment is kept whole: its lines are prose, never definitions.
      let end = i;
      while (end < lines.length && !lines[end]!.includes(']]')) end++;
      kept.push(...comments, ...lines.slice(i, end + 1));
      comments = [];
      i = end;
      continue;
    }
    const fn = FUNCTION.exec(line);
    const constant = fn ? null : CONSTANT.exec(line);
    if (!fn && !constant) {
      if (/^--(?!\[\[)/.test(line)) comments.push(line);
      else {
        kept.push(...comments, line);
        comments = [];
      }
      continue;
    }
    flush();
    const body = [...comments, line];
    comments = [];
    if (fn && /^[^-]*\bend\s*$/.test(line)) {
      pieces.push({ text: body.join('\n'), defines: [fn[1]!] }); // a one-line function
    } else if (fn) {
      let end = i + 1;
      while (end < lines.length && lines[end] !== 'end' && !/^end\s*(--.*)?$/.test(lines[end]!)) {
        if (/^(local )?function /.test(lines[end]!)) throw new LuaLayoutError(file, end + 1, `the function ${fn[1]} that starts at line ${i + 1} has no column-0 "end" before the next definition`);
        end++;
      }
      if (end === lines.length) throw new LuaLayoutError(file, i + 1, `the function ${fn[1]} has no column-0 "end"`);
      body.push(...lines.slice(i + 1, end + 1));
      i = end;
      pieces.push({ text: body.join('\n'), defines: [fn[1]!] });
    } else {
      const opened = (line.match(/[({]/g) ?? []).length;
      if (opened !== (line.match(/[)}]/g) ?? []).length) throw new LuaLayoutError(file, i + 1, 'a top-level constant must fit on one line (its brackets close on it)');
      pieces.push({ text: body.join('\n'), defines: constant![1]!.split(',').map((name) => name.trim()) });
    }
  }
  kept.push(...comments);
  flush();
  return pieces;
}

/** The identifiers a piece names, full-line comments and block comments left out. */
function namesIn(text: string): Set<string> {
  const code = text.replace(/^--\[\[[\s\S]*?\]\]/gm, '').replace(/^\s*--.*$/gm, '');
  return new Set(code.match(IDENTIFIER) ?? []);
}

/** The pieces' text with every definition no kept piece reaches left out. */
export function shake(pieces: readonly LuaPiece[]): string {
  const definedBy = new Map<string, number[]>();
  pieces.forEach((piece, index) => {
    for (const name of piece.defines ?? []) definedBy.set(name, [...(definedBy.get(name) ?? []), index]);
  });
  const keep = new Set<number>();
  const pending: number[] = [];
  const reach = (index: number) => {
    if (keep.has(index)) return;
    keep.add(index);
    pending.push(index);
  };
  pieces.forEach((piece, index) => piece.defines === undefined && reach(index));
  while (pending.length > 0) {
    for (const name of namesIn(pieces[pending.pop()!]!.text)) {
      for (const index of definedBy.get(name) ?? []) reach(index);
    }
  }
  return pieces
    .filter((_, index) => keep.has(index))
    .map((piece) => piece.text)
    .join('\n');
}
