import { MnemosError } from '../../domain/errors.ts';

/**
 * Why the server could not listen, as an error the user can act on. Node's own
 * error (`listen EADDRINUSE: address already in use 127.0.0.1:7420`) reached
 * the CLI as `internal`, exit 1, the code README keeps for bugs, though a port
 * another program holds is the likeliest snag of a first `npm start`.
 * Errors of other kinds pass through as they are.
 */
export function listenError(err: unknown, host: string, port: number): unknown {
  const at = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  switch ((err as NodeJS.ErrnoException | null)?.code) {
    case 'EADDRINUSE':
      return new MnemosError('unavailable', `cannot listen on ${at}: another program (another mnemos serve?) is using port ${port}; stop it, or pass --port <n> (--port 0 takes a free one)`, { field: 'port', port }, { cause: err });
    case 'EACCES':
      return new MnemosError('forbidden', `cannot listen on ${at}: this user may not open port ${port} (ports below 1024 need privileges); pass --port 1024 or higher`, { field: 'port', port }, { cause: err });
    case 'EADDRNOTAVAIL':
      return new MnemosError('validation_failed', `cannot listen on ${at}: ${host} is no address of this machine; pass --host 127.0.0.1 (this machine only), 0.0.0.0 (every address) or one of its own`, { field: 'host', host }, { cause: err });
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new MnemosError('validation_failed', `cannot listen on ${at}: the name ${host} does not resolve to an address; pass --host with an address of this machine`, { field: 'host', host }, { cause: err });
    default:
      return err;
  }
}
