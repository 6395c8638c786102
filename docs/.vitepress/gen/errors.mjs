// The errors reference: every error class an entry point exports (read from
// the built package, so none is missed), what its doc comment says it means
// and what to do, the class it extends, and the HTTP answer SpoolExceptionFilter
// gives for it. The page's own text is docs/reference/errors.md.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Comment, ReflectionKind } from 'typedoc';
import { API_OUT, ROOT, cellText, entryPoints, generatedBy } from './paths.mjs';

const require = createRequire(join(ROOT, 'package.json'));

/** name -> { error class, entry points that export it } */
function exportedErrors() {
  const found = new Map();
  for (const entry of entryPoints()) {
    for (const [name, value] of Object.entries(require(entry.cjs))) {
      if (typeof value !== 'function' || !(value.prototype instanceof Error)) continue;
      const known = found.get(name) ?? { value, entries: [] };
      known.entries.push(entry.name);
      found.set(name, known);
    }
  }
  return found;
}

/** The API page of a class: the first module (in entry point order) whose folder has it. */
function apiLink(name) {
  for (const entry of entryPoints()) {
    if (existsSync(join(API_OUT, entry.name, 'classes', `${name}.md`))) return `/api/${entry.name}/classes/${name}`;
  }
  return undefined;
}

/** What SpoolExceptionFilter answers for an error of this class (instances made without their constructor). */
function httpStatus(spoolHttpError, value) {
  const answer = spoolHttpError(Object.create(value.prototype));
  return answer ? String(answer.status) : '';
}

export function errorsReference(project) {
  const { spoolHttpError } = require(entryPoints()[0].cjs);
  const comments = new Map();
  for (const reflection of project.getReflectionsByKind(ReflectionKind.Class)) {
    if (reflection.comment && !comments.has(reflection.name)) comments.set(reflection.name, reflection.comment);
  }
  const rows = [...exportedErrors()].sort(([a], [b]) => a.localeCompare(b)).map(([name, { value, entries }]) => {
    const parent = Object.getPrototypeOf(value).name;
    const comment = comments.get(name);
    const text = comment ? Comment.combineDisplayParts([...comment.summary, ...comment.blockTags.filter((t) => t.tag === '@remarks').flatMap((t) => t.content)]) : '';
    const link = apiLink(name);
    const title = link ? `[\`${name}\`](${link})` : `\`${name}\``;
    return `| ${title} | \`${parent}\` | ${entries.map((e) => `\`${e}\``).join(', ')} | ${httpStatus(spoolHttpError, value)} | ${cellText(text)} |`;
  });
  return [
    generatedBy('errors.mjs', 'the error classes the entry points export and their doc comments'),
    '| Error | Extends | Exported by | HTTP | What it means, what to do |',
    '|---|---|---|---|---|',
    ...rows,
    '',
  ].join('\n');
}
