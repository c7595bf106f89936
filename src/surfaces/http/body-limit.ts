import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { requestError } from '../tools/request-error.ts';

/**
 * The request body limit, decided from the headers wherever they decide it.
 * hono's bodyLimit asks for `c.req.raw.body` first, and on @hono/node-server
 * that one question builds the whole web Request (an AbortController, the
 * header list, a stream over the socket) for every request, GETs included,
 * where the handlers read the body straight from the socket otherwise.
 *
 * A GET or HEAD carries no body the handlers read; a declared length is
 * compared as it stands (server.ts answers an oversized one before the app
 * sees it; this is the same rule for the app alone); no length and no
 * transfer coding means no body (RFC 9112, 6.3). Only a chunked body, whose
 * size is known once read, goes through hono's counting reader.
 */
export function requestBodyLimit(maxBytes: number): MiddlewareHandler {
  const tooLarge = () => {
    throw requestError('limit_exceeded', `request body is larger than ${maxBytes} bytes; send smaller batches`, { maxBodyBytes: maxBytes });
  };
  const counted = bodyLimit({ maxSize: maxBytes, onError: tooLarge });
  return async (c, next) => {
    const method = c.req.method;
    if (method === 'GET' || method === 'HEAD') return next();
    if (c.req.header('transfer-encoding') !== undefined) return counted(c, next);
    const declared = c.req.header('content-length');
    if (declared === undefined) return next();
    if (Number.parseInt(declared, 10) > maxBytes) tooLarge();
    return next();
  };
}
