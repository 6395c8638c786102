/** One sample of the Prometheus text exposition format (version 0.0.4). */
export interface PromSample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

export interface PromFamily {
  readonly name: string;
  readonly type: string;
  readonly help: string;
  readonly samples: PromSample[];
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;

/**
 * Parses the text format as Prometheus reads it: HELP and TYPE comments,
 * samples `name{label="value",...} value [timestamp]` with escaped label
 * values (\\, \", \n). Throws on any line it cannot read, so a malformed
 * exposition fails the test that scrapes it.
 */
export function parsePromText(text: string): Map<string, PromFamily> {
  const families = new Map<string, PromFamily>();
  const family = (name: string): PromFamily => {
    let f = families.get(name);
    if (!f) families.set(name, (f = { name, type: 'untyped', help: '', samples: [] }));
    return f;
  };
  for (const [i, line] of text.split('\n').entries()) {
    if (line.trim() === '') continue;
    const meta = /^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) ?(.*)$/.exec(line);
    if (meta) {
      const f = family(meta[2]!);
      if (meta[1] === 'TYPE') families.set(f.name, { ...f, type: meta[3]! });
      else families.set(f.name, { ...f, help: meta[3]! });
      continue;
    }
    if (line.startsWith('#')) continue;
    const sample = parseSample(line, i + 1);
    family(familyOf(sample.name, families)).samples.push(sample);
  }
  return families;
}

function familyOf(name: string, families: Map<string, PromFamily>): string {
  for (const suffix of ['_bucket', '_sum', '_count']) {
    const base = name.slice(0, -suffix.length);
    if (name.endsWith(suffix) && families.get(base)?.type === 'histogram') return base;
  }
  return name;
}

function parseSample(line: string, at: number): PromSample {
  const fail = (why: string): never => {
    throw new Error(`line ${at}: ${why}: ${line}`);
  };
  const name = NAME.exec(line)?.[0] ?? fail('no metric name');
  let pos = name.length;
  const labels: Record<string, string> = {};
  if (line[pos] === '{') {
    pos += 1;
    while (line[pos] !== '}') {
      const label = /^[a-zA-Z_][a-zA-Z0-9_]*/.exec(line.slice(pos))?.[0] ?? fail('bad label name');
      pos += label.length;
      if (line.slice(pos, pos + 2) !== '="') fail('expected ="');
      pos += 2;
      let value = '';
      for (;;) {
        const c = line[pos] ?? fail('unterminated label value');
        pos += 1;
        if (c === '"') break;
        if (c === '\\') {
          const e = line[pos] ?? fail('bad escape');
          pos += 1;
          value += e === 'n' ? '\n' : e;
        } else value += c;
      }
      labels[label] = value;
      if (line[pos] === ',') pos += 1;
      else if (line[pos] !== '}') fail('expected , or }');
    }
    pos += 1;
  }
  const rest = line.slice(pos).trim().split(/\s+/);
  if (rest.length < 1 || rest.length > 2) fail('expected a value and an optional timestamp');
  const raw = rest[0]!;
  const value = raw === '+Inf' ? Infinity : raw === '-Inf' ? -Infinity : raw === 'NaN' ? NaN : Number(raw);
  if (Number.isNaN(value) && raw !== 'NaN') fail(`bad value "${raw}"`);
  return { name, labels, value };
}

/** The value of the one sample of `name` with exactly these labels (among others it may have). */
export function sampleValue(families: Map<string, PromFamily>, family: string, name: string, labels: Record<string, string>): number | undefined {
  return families
    .get(family)
    ?.samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;
}
