import { randomFillSync } from 'node:crypto';

/** Port: new UUIDs for locations, groups and events the server names. */
export abstract class IdGenerator {
  abstract next(): string;
}

const POOL_SIZE = 16 * 1024;
const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));

/**
 * Version 7 UUIDs (RFC 9562): 48 bits of Unix milliseconds, then random bits. Ids the server names sort by creation
 * time, so the unique index on event ids grows at its right edge instead of taking a random page per insert, which
 * matters when an import writes a million events. Random bytes come from a pooled buffer, as randomUUID's do.
 */
export class TimeOrderedUuidGenerator extends IdGenerator {
  private readonly pool = Buffer.alloc(POOL_SIZE);
  private offset = POOL_SIZE;

  next(): string {
    if (this.offset + 10 > POOL_SIZE) {
      randomFillSync(this.pool);
      this.offset = 0;
    }
    const random = this.pool;
    const at = this.offset;
    this.offset += 10;
    const time = Date.now();
    const high = Math.floor(time / 0x10000);
    const low = time % 0x10000;
    const bytes = [
      (high >>> 24) & 0xff,
      (high >>> 16) & 0xff,
      (high >>> 8) & 0xff,
      high & 0xff,
      (low >>> 8) & 0xff,
      low & 0xff,
      0x70 | (random[at]! & 0x0f),
      random[at + 1]!,
      0x80 | (random[at + 2]! & 0x3f),
      random[at + 3]!,
      random[at + 4]!,
      random[at + 5]!,
      random[at + 6]!,
      random[at + 7]!,
      random[at + 8]!,
      random[at + 9]!,
    ].map((byte) => HEX[byte]!);
    return `${bytes.slice(0, 4).join('')}-${bytes.slice(4, 6).join('')}-${bytes.slice(6, 8).join('')}-${bytes.slice(8, 10).join('')}-${bytes.slice(10).join('')}`;
  }
}
