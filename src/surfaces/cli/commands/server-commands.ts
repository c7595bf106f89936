import { MnemosError } from '../../../domain/errors.ts';
import { withArticle } from '../../../domain/principal.ts';
import type { Command, CommandContext } from '../command.ts';
import type { Mnemos } from '../../library/open-memory.ts';
import type { PartReport } from '../../../services/self-state.ts';
import { list, num, str } from './options.ts';
import { browserPolicy } from '../../http/browser-guard.ts';
import { cycleRegistry } from '../../../services/cycle/cycle-api.ts';
import { startScheduler } from '../../../lifecycle/scheduler.ts';
import { defaultSearchThreads } from '../../library/search-threads.ts';

const log = (ctx: CommandContext) => (line: string) => ctx.stderr(`${line}\n`);

/** Resolves on the first SIGINT or SIGTERM. */
function shutdownSignal(): Promise<string> {
  return new Promise((resolve) => {
    const on = (sig: string) => {
      process.off('SIGINT', on);
      process.off('SIGTERM', on);
      resolve(sig);
    };
    process.on('SIGINT', on);
    process.on('SIGTERM', on);
  });
}

/**
 * Consolidation on a timer for a long-running surface (serve, mcp), when the
 * caller is an owner: importance, TTLs, merges and training the built-in
 * model would otherwise never run for a store used only through it. It is a
 * job in the database: with several processes on one store, one runs and the
 * others skip.
 */
function scheduleConsolidation(every: number, memory: Mnemos, surface: string): { part: PartReport; start(say: (line: string) => void): { stop(): Promise<void> } | null } {
  const setting = '--consolidate-every-ms n (0 = off) or MNEMOS_CONSOLIDATE_EVERY_MS';
  // What self_state reports: the timer this process runs, not only that consolidation exists.
  if (every === 0 || memory.principal.role !== 'owner') {
    const why = every === 0 ? `this ${surface} runs no consolidation timer (--consolidate-every-ms 0); \`mnemos consolidate\` runs one now` : `this ${surface} acts as ${withArticle(memory.principal.role)}, and only an owner's session consolidates on a timer`;
    return { part: { part: 'consolidation', state: 'off', why, setting }, start: () => null };
  }
  return {
    part: { part: 'consolidation', state: 'on', why: `this ${surface} runs consolidation every ${everyText(every)} (a job in the database: with several processes on one store, one runs and the others skip)`, setting, everyMs: every },
    start(say) {
      const scheduler = startScheduler(memory, {
        intervalMs: every,
        onError: (err) => {
          if (!MnemosError.is(err, 'busy')) say(`mnemos ${surface}: consolidation failed: ${(err as Error).message}`);
        },
      });
      say(`  consolidation: every ${everyText(every)} (--consolidate-every-ms 0 turns it off)`);
      return scheduler;
    },
  };
}

/** The timer's period, checked before anything opens: a refused start must leave no store and no token behind. */
function consolidationInterval(ctx: CommandContext): number {
  const every = num(ctx, 'consolidate-every-ms') ?? (process.env.MNEMOS_CONSOLIDATE_EVERY_MS !== undefined ? Number(process.env.MNEMOS_CONSOLIDATE_EVERY_MS) : 30 * 60_000);
  return timerPeriod(every, 'consolidate-every-ms', 'MNEMOS_CONSOLIDATE_EVERY_MS');
}

/**
 * A timer's period in whole milliseconds, 0 for off. A fraction was taken and
 * ran at Node's 1 ms floor: `--cycle-tick-ms 0.5` ticked a thousand times a second.
 */
function timerPeriod(ms: number, option: string, variable: string): number {
  if (!Number.isInteger(ms) || ms < 0) throw new MnemosError('validation_failed', `--${option} (or ${variable}) must be a whole number of milliseconds, 0 to turn it off`, { field: option });
  return ms;
}

/** A comma-separated list from the environment; empty when unset. Bad items are refused by the policy, naming the setting. */
function envList(name: string): string[] {
  const v = process.env[name];
  return v === undefined || v.trim() === '' ? [] : v.split(',').map((s) => s.trim()).filter((s) => s !== '');
}

function everyText(ms: number): string {
  return ms >= 60_000 ? `${Math.round(ms / 60_000)} min` : `${ms} ms`;
}

export const serveCmd: Command = {
  name: 'serve',
  usage: 'serve [--port 7420] [--host 127.0.0.1] [--allow-origin url,...] [--allow-host name,...] [--owner-token-file path] [--search-threads n] [--cycle-tick-ms n] [--consolidate-every-ms n]',
  summary: 'HTTP JSON API (/v1), MCP over HTTP (/mcp), /healthz, /readyz, /openapi.json, the web inspector (/inspector)',
  options: { port: { type: 'string' }, host: { type: 'string' }, 'owner-token-file': { type: 'string' }, 'cycle-tick-ms': { type: 'string' }, 'consolidate-every-ms': { type: 'string' }, 'search-threads': { type: 'string' }, 'allow-origin': { type: 'string', multiple: true }, 'allow-host': { type: 'string', multiple: true } },
  async run(ctx) {
    const port = num(ctx, 'port') ?? 7420;
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new MnemosError('validation_failed', '--port must be an integer 0-65535', { field: 'port' });
    const host = str(ctx, 'host') ?? '127.0.0.1';
    // Web pages may not call the server unless their origin is listed; Host names beyond the loopback ones must be too.
    const browsers = browserPolicy(host, list(ctx, 'allow-origin') ?? envList('MNEMOS_ALLOWED_ORIGINS'), list(ctx, 'allow-host') ?? envList('MNEMOS_ALLOWED_HOSTS'));
    // Every setting is checked before the store opens: a refused start created the store and an owner token it never showed.
    const threadsWanted = num(ctx, 'search-threads') ?? (process.env.MNEMOS_SEARCH_THREADS ? Number(process.env.MNEMOS_SEARCH_THREADS) : defaultSearchThreads());
    if (!Number.isInteger(threadsWanted) || threadsWanted < 0 || threadsWanted > 64) throw new MnemosError('validation_failed', '--search-threads (or MNEMOS_SEARCH_THREADS) must be a whole number from 0 to 64', { field: 'search-threads' });
    const every = consolidationInterval(ctx);
    // Read like MNEMOS_CONSOLIDATE_EVERY_MS: an unset variable is off, a value that is no number is refused (it was read as off).
    const tickEnv = process.env.MNEMOS_CYCLE_TICK_MS;
    const tickMs = timerPeriod(num(ctx, 'cycle-tick-ms') ?? (tickEnv === undefined || tickEnv.trim() === '' ? 0 : Number(tickEnv)), 'cycle-tick-ms', 'MNEMOS_CYCLE_TICK_MS');
    const memory = await ctx.open();
    const say = log(ctx);
    const tokenFile = str(ctx, 'owner-token-file');
    const threads = threadsWanted > 0 ? await memory.startSearchThreads(threadsWanted) : 0;
    const searchPart = {
      part: 'search_threads',
      state: threads > 0 ? ('on' as const) : ('off' as const),
      why: threads > 0 ? `searches run on ${threads} worker thread${threads === 1 ? '' : 's'}, each with its own store handle and vector copy` : 'searches run on the server\'s event loop',
      setting: '--search-threads, MNEMOS_SEARCH_THREADS',
    };
    // Read when self_state is asked: the threads load the keyword index copy and the vectors after they start.
    const cachesPart = {
      part: 'search_caches',
      get state() {
        return threads === 0 ? ('off' as const) : memory.searchThreadsWarm ? ('on' as const) : ('unavailable' as const);
      },
      get why() {
        if (threads === 0) return 'without search threads, the first search loads the keyword index copy and the vectors';
        return memory.searchThreadsWarm
          ? 'the search threads have loaded the keyword index copy and the vectors'
          : 'the search threads are loading the keyword index copy and the vectors; searches meanwhile wait for them';
      },
      setting: null,
    };
    // Loaded here, not at the top: the HTTP and MCP libraries would add about 0.2 s to the 0.45 s start of every other command.
    const { startServer } = await import('../../http/server.ts');
    const consolidation = scheduleConsolidation(every, memory, 'serve');
    const server = await startServer({ memory, host, port, log: say, browsers, parts: [searchPart, cachesPart, consolidation.part] });
    // Listened for before the start lines say it is up: a supervisor (or a test) that stops it on seeing them sent
    // SIGTERM before the handler was there, and the process died at once without closing the store.
    const signalled = shutdownSignal();
    // Once the server listens: a start that fails (a port in use) makes no token it would never show.
    const boot = tokenFile ? await memory.ensureOwnerToken(tokenFile) : null;
    // Each agent that has used its blackboard gets a cycle tick on this timer (off unless asked for).
    if (tickMs > 0) {
      cycleRegistry(memory.context).start(tickMs, (err) => say(`mnemos serve: cycle tick failed: ${(err as Error).message}`));
      say(`  cognitive cycle: ticking every ${tickMs} ms for each agent with a blackboard`);
    }
    // The store's location, not --db as typed: a PostgreSQL URL's password is masked there.
    say(`mnemos serve: ${server.url} (store ${memory.store.location}, namespace ${ctx.namespace})`);
    say(`  HTTP API ${server.url}/v1   MCP ${server.url}/mcp   OpenAPI ${server.url}/openapi.json   inspector ${server.url}/inspector`);
    say(`  web pages: ${browsers.allowedOrigins.length > 0 ? `allowed from ${browsers.allowedOrigins.join(', ')}` : 'none may call it'} (--allow-origin); Host names: ${browsers.allowedHosts ? browsers.allowedHosts.join(', ') : 'any'} (--allow-host)`);
    // Bound beyond loopback with no Host names, the inspector's searches are refused (docs/SERVER.md, Browsers): say so before a user meets it.
    if (!browsers.allowedHosts && !browsers.allowedOrigins.includes('*')) say('  web inspector: its searches need --allow-host <the name you open it by> (with no Host names checked, a page naming this server proves nothing)');
    say(`  searches: ${threads > 0 ? `${threads} search thread${threads === 1 ? '' : 's'}` : 'on the event loop'} (--search-threads)`);
    if (boot?.created) {
      say('');
      say(boot.replacedRevoked ? `  Every token of namespace ${ctx.namespace} was revoked: created a new owner token (shown once here, saved for you):` : '  First start: created an owner token (shown once here, saved for you):');
      say(`    ${boot.token}`);
      say(`  saved to ${boot.path} (mode 0600). Use it as:`);
      say(`    curl -H "Authorization: Bearer $(cat ${boot.path})" ${server.url}/v1/status`);
      say('  More tokens: mnemos token create --role guest|agent|owner');
      if (boot.movedAside) say(boot.replacedRevoked ? `  the token ${boot.path} held before was kept as ${boot.movedAside}` : `  ${boot.path} held another store's or namespace's owner token; it was kept as ${boot.movedAside}`);
    } else if (boot) {
      const missing = boot.fileProblem ? `${boot.path} ${boot.fileProblem}` : `none saved at ${boot.path}`;
      say(`  owner token: ${boot.token ? boot.path : `${missing}; create one with mnemos token create --role owner`}`);
    } else if (!(await memory.listTokens()).some((t) => t.revokedAt === null)) {
      // `npm start` makes the first token; a plain `mnemos serve` (a global or npx install) does not, and its
      // start lines said nothing of tokens, so every /v1 and /mcp request was refused with no word of why.
      say(`  tokens: namespace ${ctx.namespace} has none, so /v1, /mcp and the inspector refuse every request: create one with mnemos token create --role owner (or start with --owner-token-file <path>, which makes one and saves it there)`);
    }
    // With --json, the one object is printed once the server listens (the command runs until a signal): a script
    // starting `serve --port 0` learns the port here instead of parsing log lines. The secret stays in its file.
    if (ctx.json) {
      ctx.stdout(
        `${JSON.stringify({
          url: server.url,
          host,
          port: server.port,
          store: memory.store.location,
          namespace: ctx.namespace,
          searchThreads: threads,
          allowedOrigins: browsers.allowedOrigins,
          allowedHosts: browsers.allowedHosts,
          ownerTokenFile: boot?.path ?? null,
          ownerTokenCreated: boot?.created ?? false,
          inspector: `${server.url}/inspector`,
        })}\n`,
      );
    }
    const scheduler = consolidation.start(say);
    const sig = await signalled;
    await scheduler?.stop();
    say(`mnemos serve: ${sig}, finishing in-flight requests`);
    await server.close();
    say('mnemos serve: stopped; closing the store');
    return undefined;
  },
};

/**
 * The token a stdio session acts as; none means the local owner. A token given empty (`--token ""`,
 * or `MNEMOS_TOKEN=` from a variable that was never set) was read as none, and a session meant to be a
 * guest's served the local owner's whole namespace. Refused instead; leaving both out still means the owner.
 */
function sessionToken(option: string | undefined, env: string | undefined): string | undefined {
  const [secret, where] = option !== undefined ? [option, '--token'] : [env, 'MNEMOS_TOKEN'];
  if (secret !== undefined && secret.trim() === '') {
    throw new MnemosError('unauthorized', `${where} is given but empty: give a token (mnemos token create --role guest|agent|owner), or leave ${where} out to act as the local owner`, { field: where });
  }
  return secret;
}

export const mcpCmd: Command = {
  name: 'mcp',
  usage: 'mcp [--token t] [--consolidate-every-ms n]',
  summary: 'MCP over stdio (acts as --token / $MNEMOS_TOKEN, else the local owner); an owner session also consolidates on a timer',
  options: { token: { type: 'string' }, 'consolidate-every-ms': { type: 'string' } },
  async run(ctx) {
    const every = consolidationInterval(ctx);
    const secret = sessionToken(str(ctx, 'token'), process.env.MNEMOS_TOKEN);
    const root = await ctx.open();
    const memory = secret !== undefined ? root.as(await root.authenticate(secret)) : root;
    const say = log(ctx);
    const consolidation = scheduleConsolidation(every, memory, 'mcp');
    const scheduler = consolidation.start(say);
    try {
      const { serveStdio } = await import('../../mcp/stdio.ts');
      // SIGTERM or SIGINT ends the session as closing stdin does: the calls in flight finish and are answered first.
      await serveStdio(memory, say, [consolidation.part], shutdownSignal());
    } finally {
      await scheduler?.stop();
    }
    return undefined;
  },
};
