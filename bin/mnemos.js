#!/usr/bin/env node
// Entry point of the `mnemos` command: registers the TypeScript loader, then runs the CLI.
import { register } from 'tsx/esm/api';

register();
const { runCli } = await import('../src/surfaces/cli/main.ts');
process.exitCode = await runCli(process.argv.slice(2));
