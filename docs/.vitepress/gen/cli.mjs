// The CLI reference: the built `spool` program's own --help for every
// command, so the page says what the binary does. The page's text is docs/reference/cli.md.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { ROOT, generatedBy } from './paths.mjs';

const require = createRequire(join(ROOT, 'package.json'));

function commandsOf(command, path = []) {
  return command.commands.flatMap((sub) => {
    const here = [...path, sub.name()];
    return [{ path: here, command: sub }, ...commandsOf(sub, here)];
  });
}

export function cliReference() {
  const { buildProgram } = require(join(ROOT, 'dist', 'cjs', 'cli', 'program.js'));
  const program = buildProgram();
  const width = (command) => command.configureHelp({ helpWidth: 100 });
  width(program);
  const help = (command) => command.helpInformation().trimEnd();
  const sections = commandsOf(program).map(({ path, command }) => {
    width(command);
    return [`### spool ${path.join(' ')}`, '', command.description() ? `${command.description()}` : '', '', '```text', help(command), '```', ''].join('\n');
  });
  return [
    generatedBy('cli.mjs', "the spool program's --help (lib/cli)"),
    '## spool',
    '',
    '```text',
    help(program),
    '```',
    '',
    ...sections,
  ].join('\n');
}
