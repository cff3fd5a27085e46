// Seedable pseudo-random numbers (mulberry32) and seed hashing: the simulator never calls Math.random,
// so the same seed always yields the same stores, results and faults.

/**
 * A 32-bit seed from any mix of strings and numbers (FNV-1a, then a murmur3 finaliser so that
 * near-identical inputs such as consecutive indexes give unrelated streams).
 */
export function hashSeed(...parts: readonly (string | number)[]): number {
  let hash = 0x811c9dc5;
  const text = parts.join('\u001f');
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return hash >>> 0;
}

/** Two hex digits per byte value: Number#toString(16) is slow enough to matter for 60,000 UUIDs. */
const BYTE_HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));

function hex8(value: number): string {
  return (
    (BYTE_HEX[value >>> 24] ?? '00') +
    (BYTE_HEX[(value >>> 16) & 0xff] ?? '00') +
    (BYTE_HEX[(value >>> 8) & 0xff] ?? '00') +
    (BYTE_HEX[value & 0xff] ?? '00')
  );
}

/**
 * One random stream (mulberry32: tiny, fast, good enough for test data, not for secrets).
 * A class because it owns its state, and because tens of thousands are made per store.
 */
export class Random {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** Next 32-bit unsigned integer. */
  uint32(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.uint32() / 4294967296;
  }

  /** Integer in [min, max], both inclusive. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** Uniform float in [min, max). */
  float(min: number, max: number): number {
    return min + this.next() * (max - min);
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    const item = items[Math.floor(this.next() * items.length)];
    if (item === undefined) throw new RangeError('pick() needs at least one item');
    return item;
  }

  /** One value, drawn with probability proportional to its weight. */
  weighted<T>(entries: readonly (readonly [T, number])[]): T {
    let total = 0;
    for (const [, weight] of entries) total += weight;
    let roll = this.next() * total;
    for (const [value, weight] of entries) {
      roll -= weight;
      if (roll < 0) return value;
    }
    const last = entries[entries.length - 1];
    if (last === undefined) throw new RangeError('weighted() needs at least one entry');
    return last[0];
  }

  /** `count` distinct items in random order (fewer when there are not enough). */
  sample<T>(items: readonly T[], count: number): T[] {
    const pool = [...items];
    const out: T[] = [];
    while (out.length < count && pool.length > 0) {
      const [item] = pool.splice(Math.floor(this.next() * pool.length), 1);
      if (item !== undefined) out.push(item);
    }
    return out;
  }

  /** Standard normal draw (Box-Muller). */
  normal(): number {
    const u1 = 1 - this.next(); // (0, 1]: log(0) would be -Infinity
    const u2 = this.next();
    return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
  }

  /** A random version-4 UUID (RFC 4122 variant). */
  uuid(): string {
    const a = hex8(this.uint32());
    const b = hex8(this.uint32());
    const c = hex8(this.uint32());
    const d = hex8(this.uint32());
    const variant = (8 + (this.uint32() & 3)).toString(16);
    return `${a}-${b.slice(0, 4)}-4${b.slice(5)}-${variant}${c.slice(1, 4)}-${c.slice(4)}${d}`;
  }

  /** `length` lowercase hex digits. */
  hex(length: number): string {
    let out = '';
    while (out.length < length) out += hex8(this.uint32());
    return out.slice(0, length);
  }
}

export function createRandom(seed: number): Random {
  return new Random(seed);
}
