#!/usr/bin/env node
// Entry point of the `mnemos` command: runs the CLI (compiled when built, see cli-module.js).
import { loadCli } from './cli-module.js';

const { runCli } = await loadCli();
process.exitCode = await runCli(process.argv.slice(2));
