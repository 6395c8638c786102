#!/usr/bin/env node
// The `spool` command (package.json "bin"): a client of the engine's public API.
import { run } from './program.js';

void run(process.argv).then((code) => {
  process.exitCode = code;
  // Every connection is closed by now; should a socket linger, do not hang the shell.
  setTimeout(() => process.exit(code), 2000).unref();
});
