import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ'; // Crockford base32

/**
 * Job ids: 26 characters, ULID layout (48-bit ms time + 80 random bits),
 * lexicographically sortable by creation time and unique across processes.
 * Within one millisecond the random part counts up, so ids of one process
 * stay strictly increasing.
 */
export class IdGenerator {
  private lastTime = -1;
  /** encodeTime(lastTime): ids made in the same millisecond (a bulk) share it. */
  private timePart = '';
  private readonly random = new Uint8Array(10);

  next(now: number = Date.now()): string {
    if (now <= this.lastTime) {
      this.increment();
    } else {
      this.lastTime = now;
      this.timePart = encodeTime(now);
      this.random.set(randomBytes(10));
    }
    return this.timePart + encodeRandom(this.random);
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
    this.timePart = encodeTime(this.lastTime);
  }
}

function encodeTime(time: number): string {
  let out = '';
  for (let i = 0; i < 10; i++) {
    out = ALPHABET[time % 32] + out;
    time = Math.floor(time / 32);
  }
  return out;
}

function encodeRandom(bytes: Uint8Array): string {
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(buffer >> (bits - 5)) & 31];
      bits -= 5;
    }
    buffer &= (1 << bits) - 1;
  }
  return out;
}
