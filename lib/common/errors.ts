/**
 * The errors every layer shares: the base class and the argument errors.
 * Lives below the store so that no layer has to import a higher one to throw them.
 */

/** Base class: `instanceof SpoolError` catches everything Spool throws on purpose. */
export class SpoolError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** A bad argument: `field` names it (e.g. `opts.delay`, `data.user.id`). Nothing was written. */
export class InvalidArgumentError extends SpoolError {
  constructor(readonly field: string, problem: string, readonly fix?: string) {
    super(`${field} ${problem}${fix ? `: ${fix}` : ''}`);
  }
}

/** An option that does not exist (usually a typo). */
export class UnknownOptionError extends InvalidArgumentError {
  /** The valid keys of the object the unknown one was found in. */
  constructor(field: string, readonly known: readonly string[]) {
    const guess = closest(field.split('.').pop() ?? field, known);
    super(field, 'is not an option', guess ? `did you mean "${guess}"?` : `known options: ${known.join(', ')}`);
  }
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
