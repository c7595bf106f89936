import { randomFillSync } from 'node:crypto';

/**
 * Time-sortable ids (ULID: 48-bit millisecond time, 80 random bits, Crockford
 * base32). Monotonic within one process: an id minted in the same millisecond
 * as the last one (or with an earlier clock reading) keeps the last time and
 * adds one to the last random part, so ids still sort in creation order.
 *
 * Our own encoder, not the `ulid` package's: that one asked the operating
 * system for one random byte per character, sixteen calls per new
 * millisecond, about 100 us per id on this machine, which every single write
 * (an HTTP request, an agent's note) paid. Here random bytes come from a pool
 * refilled 4 KiB at a time. Nothing runs at import.
 */
const ENCODING = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const TIME_MAX = 2 ** 48 - 1;
const POOL_BYTES = 4096;

export interface IdFactory {
  (now?: number): string;
}

/** A monotonic ULID factory drawing random bytes from `fill` (tests pass a fixed source). */
export function idFactory(fill: (buf: Uint8Array) => void = randomFillSync): IdFactory {
  const pool = new Uint8Array(POOL_BYTES);
  let used = POOL_BYTES;
  let lastTime = -1;
  const random = new Uint8Array(10);
  return (at = Date.now()) => {
    const now = Math.floor(at);
    if (!(now >= 0 && now <= TIME_MAX)) throw new RangeError(`an id's time must be milliseconds from 0 to 2^48 - 1, not ${at}`);
    if (now <= lastTime) {
      // Same (or an earlier) millisecond: the last random part plus one, carrying from the last byte.
      let i = random.length - 1;
      while (i >= 0 && random[i] === 0xff) i--;
      // Checked before anything changes: after the error the next id of this millisecond must not wrap to a smaller one.
      if (i < 0) throw new RangeError('more ids in one millisecond than the random part can count');
      random[i]!++;
      random.fill(0, i + 1);
    } else {
      lastTime = now;
      if (used + random.length > POOL_BYTES) {
        fill(pool);
        used = 0;
      }
      random.set(pool.subarray(used, used + random.length));
      used += random.length;
    }
    return encodeTime(lastTime) + encodeRandom(random);
  };
}

function encodeTime(t: number): string {
  let out = '';
  for (let i = 0; i < 10; i++) {
    out = ENCODING[t % 32]! + out;
    t = Math.floor(t / 32);
  }
  return out;
}

/** 80 bits, most significant first, five at a time. */
function encodeRandom(bytes: Uint8Array): string {
  let out = '';
  let acc = 0;
  let bits = 0;
  for (const b of bytes) {
    acc = (acc << 8) | b;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += ENCODING[(acc >> bits) & 31]!;
    }
    acc &= (1 << bits) - 1;
  }
  return out;
}

let factory: IdFactory | undefined;

export function newId(now: number = Date.now()): string {
  factory ??= idFactory();
  return factory(now);
}

const ULID_RE = /^[0-9A-HJKMNP-TV-Z]{26}$/;
export function isId(value: string): boolean {
  return ULID_RE.test(value);
}
