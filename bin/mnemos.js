#!/usr/bin/env node
// Entry point of the `mnemos` command: runs the CLI (compiled when built, see cli-module.js).
import { loadCli } from './cli-module.js';

// A reader that stops early (`mnemos export | head`) closes the pipe: that ends the command, quietly, like any
// Unix tool, instead of an unhandled EPIPE stack trace.
process.stdout.on('error', (err) => {
  if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw err;
});

const { runCli } = await loadCli();
process.exitCode = await runCli(process.argv.slice(2));
