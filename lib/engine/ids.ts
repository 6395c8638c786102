import { randomFillSync } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ'; // Crockford base32
const CODES = Uint8Array.from(ALPHABET, (c) => c.charCodeAt(0));

/**
 * Random bytes for the ids' random parts, filled 1 KiB at a time: one
 * randomBytes(10) per id (a new millisecond each, for adds that come one
 * at a time) cost more than the rest of the id, and most of a lone add's
 * node time before its command is sent.
 */
const POOL = new Uint8Array(1000);
let poolAt = POOL.length;

function take10(into: Uint8Array): void {
  if (poolAt + 10 > POOL.length) {
    randomFillSync(POOL);
    poolAt = 0;
  }
  into.set(POOL.subarray(poolAt, poolAt + 10));
  poolAt += 10;
}

/**
 * Job ids: 26 characters, ULID layout (48-bit ms time + 80 random bits),
 * lexicographically sortable by creation time and unique across processes.
 * Within one millisecond the random part counts up, so ids of one process
 * stay strictly increasing.
 */
export class IdGenerator {
  private lastTime = -1;
  private readonly random = new Uint8Array(10);
  /**
   * The id's 26 ASCII characters, decoded to a string in one step: the time
   * part (columns 0-9) is written once per millisecond, the random part per
   * id. Built character by character, an id cost 26 intermediate strings,
   * and a bulk add makes one per job.
   */
  private readonly chars = Buffer.alloc(26);

  next(now: number = Date.now()): string {
    if (now <= this.lastTime) {
      this.increment();
    } else {
      this.lastTime = now;
      encodeTime(now, this.chars);
      take10(this.random);
    }
    encodeRandom(this.random, this.chars);
    return this.chars.toString('latin1', 0, 26);
  }

  private increment(): void {
    for (let i = this.random.length - 1; i >= 0; i--) {
      if (this.random[i]! < 255) {
        this.random[i]! += 1;
        return;
      }
      this.random[i] = 0;
    }
    // 2^80 ids in one millisecond: move to the next one.
    this.lastTime += 1;
    encodeTime(this.lastTime, this.chars);
  }
}

/** Columns 0-9: the time in ms, most significant first. */
function encodeTime(time: number, out: Buffer): void {
  for (let i = 9; i >= 0; i--) {
    out[i] = CODES[time % 32]!;
    time = Math.floor(time / 32);
  }
}

/** Columns 10-25: the 80 random bits, 5 per character. */
function encodeRandom(bytes: Uint8Array, out: Buffer): void {
  let at = 10;
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out[at++] = CODES[(buffer >> (bits - 5)) & 31]!;
      bits -= 5;
    }
    buffer &= (1 << bits) - 1;
  }
}
