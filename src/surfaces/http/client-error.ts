import { maxHeaderSize } from 'node:http';
import type { Socket } from 'node:net';
import { MnemosError, type ErrorCode } from '../../domain/errors.ts';

/** How long a refused client may keep the socket after the answer before it is cut. */
const LINGER_MS = 5_000;

/**
 * Answers a request Node's parser refused before any handler saw it (a URL
 * or headers past the header limit, a malformed request, a header that
 * took too long) with the JSON error shape every other answer has. Node's
 * own answer was a bare status line: `431` with an empty body for a long
 * URL, so a client that reads `error.code` had nothing to read and no hint
 * that a search's query string was the cause.
 *
 * As in Node's default, nothing is written once a response has started on
 * the socket (a kept-alive connection): a second answer there would
 * corrupt the first. The connection always closes.
 */
export function answerClientError(err: Error & { code?: string }, socket: Socket): void {
  if (err.code === 'ECONNRESET' || !socket.writable || socket.bytesWritten > 0) {
    socket.destroy();
    return;
  }
  const [status, reason, code, message] = describe(err);
  const body = JSON.stringify({ error: new MnemosError(code, message).toJSON() });
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nX-Content-Type-Options: nosniff\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  // The client may never close its side; the answer has been sent by then.
  setTimeout(() => socket.destroy(), LINGER_MS).unref();
}

function describe(err: Error & { code?: string }): [number, string, ErrorCode, string] {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return [431, 'Request Header Fields Too Large', 'limit_exceeded', `the request's URL and headers are larger than the server accepts (${maxHeaderSize} bytes in all); send long values in a POST body rather than the query string, and shorten or drop large headers`];
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return [413, 'Payload Too Large', 'limit_exceeded', 'the request\'s chunk extensions are too large; send the body without them'];
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return [408, 'Request Timeout', 'limit_exceeded', 'the request was not received in full in time; send it again'];
    default:
      return [400, 'Bad Request', 'validation_failed', `the request is not valid HTTP (${err.code ?? err.message}); nothing was done`];
  }
}
