import type { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** The SDK's own stdio limit: one message (one line) up to 10 MiB. */
export const MAX_LINE_BYTES = 10 * 1024 * 1024;

/** How much of a line too long to keep: its ends, where the request id of a JSON-RPC message can be read. */
const KEEP = 4096;

type Id = string | number | null;

/**
 * MCP over newline-delimited JSON on a pair of streams, like the SDK's
 * StdioServerTransport, but a bad line never goes unanswered or ends the
 * session. The SDK's transport dropped a line that was not JSON or not
 * JSON-RPC without a word, and on a line over 10 MiB closed itself: the
 * process exited 0 and the client saw only a closed pipe. Here each gets a
 * JSON-RPC error (to the request's id when it can be read, else id null, as
 * JSON-RPC 2.0 says), a line on the log, and the next line is read as usual.
 */
export class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private chunks: Buffer[] = [];
  private size = 0;
  /** Set while skipping the rest of a line too long: its first bytes, bytes seen, and the last bytes. */
  private skipping: { head: Buffer; bytes: number; tail: Buffer } | null = null;
  private closed = false;

  constructor(
    private readonly input: Readable,
    private readonly output: Writable,
    private readonly log: (line: string) => void,
    private readonly maxLineBytes = MAX_LINE_BYTES,
  ) {}

  private readonly ondata = (chunk: Buffer): void => {
    let start = 0;
    for (let nl = chunk.indexOf(0x0a); nl !== -1; nl = chunk.indexOf(0x0a, start)) {
      this.take(chunk.subarray(start, nl));
      this.endLine();
      start = nl + 1;
    }
    if (start < chunk.length) this.take(chunk.subarray(start));
  };

  private readonly onerror_ = (err: Error): void => this.onerror?.(err);

  async start(): Promise<void> {
    this.input.on('data', this.ondata);
    this.input.on('error', this.onerror_);
  }

  /** Adds part of the current line, switching to skipping it once it is too long. */
  private take(part: Buffer): void {
    if (part.length === 0) return;
    if (this.skipping) {
      this.skipping.bytes += part.length;
      this.skipping.tail = Buffer.concat([this.skipping.tail, part]).subarray(-KEEP);
      return;
    }
    this.chunks.push(part);
    this.size += part.length;
    if (this.size > this.maxLineBytes) {
      const line = Buffer.concat(this.chunks);
      this.skipping = { head: line.subarray(0, KEEP), bytes: line.length, tail: line.subarray(-KEEP) };
      this.chunks = [];
      this.size = 0;
    }
  }

  private endLine(): void {
    if (this.skipping) {
      const { head, bytes, tail } = this.skipping;
      this.skipping = null;
      this.refuse(idAtEnds(head.toString('utf8'), tail.toString('utf8')), -32600, `message of ${bytes} bytes is over the ${this.maxLineBytes}-byte limit of one stdio message; nothing in it was done`);
      return;
    }
    const line = Buffer.concat(this.chunks).toString('utf8').replace(/\r$/, '');
    this.chunks = [];
    this.size = 0;
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      // The parser's message quotes the line, control bytes and all: the length says enough to find it.
      this.refuse(null, -32700, `parse error: a line of ${Buffer.byteLength(line)} bytes is not JSON`);
      return;
    }
    const parsed = JSONRPCMessageSchema.safeParse(value);
    if (!parsed.success) {
      const id = (value as { id?: unknown } | null)?.id;
      this.refuse(typeof id === 'string' || typeof id === 'number' ? id : null, -32600, 'invalid request: not a JSON-RPC 2.0 message (jsonrpc "2.0", and a method, or a result or error with an id)');
      return;
    }
    this.onmessage?.(parsed.data);
  }

  private refuse(id: Id, code: number, message: string): void {
    this.log(`mnemos mcp: ${message}`);
    this.write({ jsonrpc: '2.0', id, error: { code, message } });
  }

  private write(message: unknown): Promise<void> {
    return new Promise((resolve) => {
      if (this.output.write(`${JSON.stringify(message)}\n`)) resolve();
      else this.output.once('drain', resolve);
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.write(message);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.input.off('data', this.ondata);
    this.input.off('error', this.onerror_);
    this.input.pause();
    this.chunks = [];
    this.onclose?.();
  }
}

/**
 * The id of a JSON-RPC object seen only by its ends. A member just before the
 * closing brace at the very end, or right after the opening brace (or after
 * "jsonrpc"), is a member of the outer object: an "id" there is the request's
 * and not one inside its params.
 */
export function idAtEnds(head: string, tail: string): Id {
  const value = String.raw`(-?\d+(?:\.\d+)?|"(?:[^"\\]|\\.)*")`;
  const first = new RegExp(String.raw`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*${value}`).exec(head);
  const last = new RegExp(String.raw`"id"\s*:\s*${value}\s*\}\s*$`).exec(tail.replace(/\r$/, ''));
  const raw = first?.[1] ?? last?.[1];
  if (raw === undefined) return null;
  try {
    return JSON.parse(raw) as string | number;
  } catch {
    return null;
  }
}
