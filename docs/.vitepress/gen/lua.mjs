// The Lua scripts reference: the header comment of every script in lua/ (purpose,
// KEYS, ARGV, replies, error codes, events) and of every include, as written.
// The page's text is docs/internals/lua-scripts.md.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, cellText, generatedBy } from './paths.mjs';

const LUA = join(ROOT, 'lua');

/** The --[[ ... ]] block a script starts with, and its first sentence. */
function header(file) {
  const text = readFileSync(file, 'utf8');
  const match = /^--\[\[\n([\s\S]*?)\n\]\]/.exec(text);
  if (!match) throw new Error(`${file} has no header comment (--[[ ... ]] at its top): every script needs one`);
  const body = match[1].replace(/^ {2}/gm, '');
  const [, name, paragraph] = /^([\w-]+):\s*([\s\S]*?)(?:\n\n|$)/.exec(body) ?? [];
  // The table shows the first sentence; the whole header follows below it.
  const sentence = /^[\s\S]*?[.;](?=\s|$)/.exec(paragraph ?? '')?.[0] ?? paragraph ?? '';
  return { body, name, purpose: sentence };
}

function scripts(dir) {
  return readdirSync(dir).filter((f) => f.endsWith('.lua')).sort().map((f) => ({ file: f, ...header(join(dir, f)) }));
}

function section(kind, list, folder) {
  const id = (s) => `${folder.replace('/', '-')}${s.file.slice(0, -4)}`;
  const table = ['| ' + kind + ' | Purpose |', '|---|---|', ...list.map((s) => `| [\`${s.file.slice(0, -4)}\`](#${id(s)}) | ${cellText(s.purpose)} |`)];
  const bodies = list.flatMap((s) => [`### ${folder}${s.file.slice(0, -4)} {#${id(s)}}`, '', `\`lua/${folder}${s.file}\``, '', '```text', s.body, '```', '']);
  return [...table, '', ...bodies];
}

export function luaReference() {
  const main = scripts(LUA);
  const includes = scripts(join(LUA, 'includes'));
  return [
    generatedBy('lua.mjs', 'the header comments of lua/*.lua and lua/includes/*.lua'),
    `## Scripts (${main.length})`,
    '',
    ...section('Script', main, ''),
    `## Includes (${includes.length})`,
    '',
    'Shared Lua that scripts pull in with `--- @include "includes/<name>"`; the loader (lib/store/script-loader.ts) inlines each once.',
    '',
    ...section('Include', includes, 'includes/'),
  ].join('\n');
}
