/**
 * `npm start`: serve the embedded default store. On a fresh store this
 * creates an owner token once, prints how to use it and saves it to
 * ./.mnemos/owner-token (0600). Extra arguments go to `mnemos serve`.
 */
import { loadCli } from './cli-module.js';

const { runCli } = await loadCli();
process.exitCode = await runCli(['serve', '--owner-token-file', './.mnemos/owner-token', ...process.argv.slice(2)]);
