/**
 * The errors every layer shares: the base class and the argument errors.
 * Lives below the store so that no layer has to import a higher one to throw them.
 */

/**
 * Base class: `instanceof SpoolError` catches everything Spool throws on purpose.
 *
 * Do: narrow to the classes below to act; for store errors, `permanent`
 * false means repeating the call later can help.
 */
export class SpoolError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}

/**
 * A bad argument: `field` names it (e.g. `opts.delay`, `data.user.id`). Nothing was written.
 *
 * Do: fix that argument as the message (`fix`) says; the same call fails the same way again.
 */
export class InvalidArgumentError extends SpoolError {
  constructor(readonly field: string, problem: string, readonly fix?: string) {
    super(`${field} ${problem}${fix ? `: ${fix}` : ''}`);
  }
}

/**
 * An entry point or feature needs peer packages the app did not install:
 * `packages` names them.
 *
 * Do: install them (the message gives the npm command) and start again.
 */
export class PeerMissingError extends SpoolError {
  constructor(readonly packages: readonly string[], message: string, options?: ErrorOptions) {
    super(message, options);
  }
}

/** One key of an options object that is not an option: where it is, what the object accepts, and a fix when one is known. */
export interface UnknownKey {
  /** The full field, e.g. `QueueModule options.connection.prefx`. */
  readonly field: string;
  /** The valid keys of the object it was found in. */
  readonly known: readonly string[];
  /** What to write instead (a BullMQ name's Spool counterpart); else a did-you-mean is guessed from `known`. */
  readonly hint?: string;
}

/**
 * Options that do not exist (usually typos, or BullMQ names): every unknown
 * key of one options object in one error, each with a did-you-mean or the
 * Spool counterpart of the BullMQ name.
 *
 * Do: rename or remove each key in `keys` as the message suggests.
 */
export class UnknownOptionError extends InvalidArgumentError {
  /** Every unknown key found, in the order of the object. */
  readonly keys: readonly UnknownKey[];
  /** The valid keys of the object the first unknown key was found in. */
  readonly known: readonly string[];

  constructor(field: string | readonly UnknownKey[], known: readonly string[] = []) {
    const keys = typeof field === 'string' ? [{ field, known }] : field;
    const listed = keys.slice(0, KEYS_LISTED).map((k) => ({ ...k, field: shortField(k.field) }));
    const first = listed[0];
    if (!first) throw new TypeError('UnknownOptionError needs at least one key');
    const fixes = listed.map(fixFor);
    if (listed.length === 1) {
      super(first.field, 'is not an option', fixes[0] ?? `known options: ${first.known.join(', ')}`);
    } else {
      // The others by their path below what all of them share (`workers.concurency`), the valid keys once.
      const root = commonParent(listed.map((k) => k.field));
      const others = listed.slice(1).map((k, i) => `neither is ${k.field.slice(root.length)}${fixes[i + 1] ? `: ${fixes[i + 1]}` : ''}`);
      const more = keys.length > listed.length ? [`and ${keys.length - listed.length} more unknown keys`] : [];
      const unguessed = listed.find((_, i) => fixes[i] === undefined);
      const knownList = unguessed ? [`known options of ${unguessed.field.slice(0, unguessed.field.lastIndexOf('.'))}: ${unguessed.known.join(', ')}`] : [];
      super(first.field, 'is not an option', [fixes[0] ?? 'no option has a similar name', ...others, ...more, ...knownList].join('; '));
    }
    this.keys = keys;
    this.known = keys[0]!.known;
  }
}

/** Most unknown keys one UnknownOptionError spells out. */
const KEYS_LISTED = 3;

/** A field whose last part (a key someone else chose) is cut to a readable length. */
function shortField(field: string): string {
  const at = field.lastIndexOf('.');
  const key = field.slice(at + 1);
  return key.length > 40 ? `${field.slice(0, at + 1)}${key.slice(0, 40)}...` : field;
}

/** The dotted path every field starts with, up to and including its last dot ('' when they share none). */
function commonParent(fields: readonly string[]): string {
  const parts = fields.map((f) => f.split('.').slice(0, -1));
  let n = 0;
  while (parts.every((p) => n < p.length && p[n] === parts[0]![n])) n++;
  return n === 0 ? '' : `${parts[0]!.slice(0, n).join('.')}.`;
}

/** The fix of one unknown key: its hint or a did-you-mean; undefined when neither is known. */
function fixFor(key: UnknownKey): string | undefined {
  if (key.hint) return key.hint;
  const guess = closest(key.field.split('.').pop() ?? key.field, key.known);
  return guess ? `did you mean "${guess}"?` : undefined;
}

function closest(word: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of known) {
    const d = distance(word.toLowerCase(), candidate.toLowerCase());
    if (d < bestDistance) [best, bestDistance] = [candidate, d];
  }
  return bestDistance <= Math.max(2, Math.floor(word.length / 3)) ? best : undefined;
}

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const current = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
      previous = current;
    }
  }
  return row[b.length]!;
}
