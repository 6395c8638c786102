// The errors reference: every error class an entry point exports (read from
// the built package, so none is missed), what its doc comment says it means
// and what to do, the class it extends, and the HTTP answer SpoolExceptionFilter
// gives for it. The page's own text is docs/reference/errors.md.
//
// The convention every exported error's doc comment follows, checked here:
// what happened first, then a paragraph of its own that starts with "Do:" and
// tells the caller what to do about it (which call, which option, whether to
// retry with the same jobId, where to look). In the comment:
//
//   /**
//    * remove() of a flow parent whose children are still pending. Nothing was changed.
//    *
//    * Do: wait for the children (`queue.waitFor`), or cancel them, then remove again.
//    */
//
// The table shows both parts in one cell ("... **Do:** ..."). A class without
// a "Do:" paragraph fails the docs build (`npm run docs:build`); --lenient
// (`npm run docs`) only warns.
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

/** The paragraph of a doc comment that tells the caller what to do: it starts with this. */
const DO = /^Do:\s+/;

/** Meaning and "Do:" part of a class's comment (summary and @remarks), or what is missing. */
function splitComment(comment) {
  if (!comment) return { problem: 'has no doc comment' };
  const text = Comment.combineDisplayParts([...comment.summary, ...comment.blockTags.filter((t) => t.tag === '@remarks').flatMap((t) => t.content)]);
  const paragraphs = text.split(/\n\s*\n/).map((p) => p.trim()).filter(Boolean);
  const at = paragraphs.findIndex((p) => DO.test(p));
  if (at < 0) return { problem: 'has no "Do:" paragraph saying what the caller should do' };
  if (at === 0) return { problem: 'starts with "Do:": say what happened first' };
  const todo = paragraphs.slice(at).join(' ').replace(DO, '');
  if (todo.length === 0) return { problem: 'has an empty "Do:" paragraph' };
  return { meaning: paragraphs.slice(0, at).join(' '), todo };
}

export function errorsReference(project, { strict = true } = {}) {
  const { spoolHttpError } = require(entryPoints()[0].cjs);
  const comments = new Map();
  for (const reflection of project.getReflectionsByKind(ReflectionKind.Class)) {
    if (reflection.comment && !comments.has(reflection.name)) comments.set(reflection.name, reflection.comment);
  }
  const problems = [];
  const rows = [...exportedErrors()].sort(([a], [b]) => a.localeCompare(b)).map(([name, { value, entries }]) => {
    const parent = Object.getPrototypeOf(value).name;
    const { meaning, todo, problem } = splitComment(comments.get(name));
    if (problem) problems.push(`${name} ${problem}`);
    const text = problem ? (meaning ?? '') : `${meaning} **Do:** ${todo}`;
    const link = apiLink(name);
    const title = link ? `[\`${name}\`](${link})` : `\`${name}\``;
    return `| ${title} | \`${parent}\` | ${entries.map((e) => `\`${e}\``).join(', ')} | ${httpStatus(spoolHttpError, value)} | ${cellText(text)} |`;
  });
  if (problems.length > 0) {
    const message = `docs: ${problems.length} exported error class(es) break the doc comment convention of docs/.vitepress/gen/errors.mjs:\n  ${problems.join('\n  ')}`;
    if (strict) throw new Error(message);
    console.warn(message);
  }
  return [
    generatedBy('errors.mjs', 'the error classes the entry points export and their doc comments'),
    '| Error | Extends | Exported by | HTTP | What it means, what to do |',
    '|---|---|---|---|---|',
    ...rows,
    '',
  ].join('\n');
}
