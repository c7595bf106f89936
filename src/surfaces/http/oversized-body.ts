import type { IncomingMessage, ServerResponse } from 'node:http';
import { MnemosError } from '../../domain/errors.ts';

/** Past this many bytes a declared body is not read through: the answer closes the connection instead. */
const DRAIN_CAP_FACTOR = 16;

/**
 * Answers a request whose declared Content-Length is over the body limit with
 * 413 before the application sees it, and keeps the connection usable. The
 * app's own limit stopped reading part-way, and the server then dropped a
 * socket it had just called keep-alive, so the client's next request on it
 * failed ("other side closed"). Here the rest of the body is read and
 * discarded first (never held), up to 16 times the limit; a larger one is
 * answered with `Connection: close`. True when it answered.
 */
export function refuseOversizedBody(req: IncomingMessage, res: ServerResponse, maxBodyBytes: number): boolean {
  const declared = Number(req.headers['content-length']);
  if (!Number.isFinite(declared) || declared <= maxBodyBytes) return false;
  const body = JSON.stringify({
    error: new MnemosError('limit_exceeded', `request body is larger than ${maxBodyBytes} bytes; send smaller batches`, { maxBodyBytes }).toJSON(),
  });
  const answer = (close: boolean) => {
    if (res.headersSent) return;
    res.writeHead(413, { 'content-type': 'application/json', 'x-content-type-options': 'nosniff', 'content-length': Buffer.byteLength(body), ...(close ? { connection: 'close' } : {}) });
    res.end(body);
  };
  if (declared > maxBodyBytes * DRAIN_CAP_FACTOR) {
    answer(true);
    req.resume();
    return true;
  }
  req.on('end', () => answer(false));
  req.on('error', () => res.destroy());
  req.resume();
  return true;
}
