// A token bucket per WebSocket connection, for messages and for bytes: a burst is let through, a flood closes the connection.
import { z } from 'zod';

export const RateLimits = z.object({
  /** Messages a connection may send at once, and per second after that. */
  burstMessages: z.int().min(1),
  messagesPerSecond: z.number().positive(),
  /** Bytes a connection may send at once, and per second after that. */
  burstBytes: z.int().min(1),
  bytesPerSecond: z.number().positive(),
});
export type RateLimits = z.infer<typeof RateLimits>;

/**
 * A desktop that joins fifty stores sends about four messages each and its copies (a few hundred
 * kB a store) at once; typing sends a message a keystroke or so. These leave that room many times over.
 */
export const DEFAULT_RATE_LIMITS: RateLimits = {
  burstMessages: 2_000,
  messagesPerSecond: 200,
  burstBytes: 64 * 1024 * 1024,
  bytesPerSecond: 8 * 1024 * 1024,
};

export class ConnectionRate {
  private messages: number;
  private bytes: number;
  private last: number;

  constructor(
    private readonly limits: RateLimits,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.messages = limits.burstMessages;
    this.bytes = limits.burstBytes;
    this.last = now();
  }

  /** Takes one message of `size` bytes; returns why it is over the limit, or null. */
  take(size: number): string | null {
    const now = this.now();
    const seconds = Math.max(0, now - this.last) / 1000;
    this.last = now;
    const { limits } = this;
    this.messages = Math.min(
      limits.burstMessages,
      this.messages + seconds * limits.messagesPerSecond,
    );
    this.bytes = Math.min(limits.burstBytes, this.bytes + seconds * limits.bytesPerSecond);
    this.messages -= 1;
    this.bytes -= size;
    if (this.messages < 0) return `more than ${limits.messagesPerSecond} messages a second`;
    if (this.bytes < 0)
      return `more than ${Math.round(limits.bytesPerSecond / 2 ** 20)} MiB a second`;
    return null;
  }
}
