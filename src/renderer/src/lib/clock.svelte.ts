// A coarse, shared "now" for relative times ("3m ago"), ticking every 20 seconds.
const TICK_MS = 20_000;

class Clock {
  now = $state(Date.now());

  constructor() {
    setInterval(() => (this.now = Date.now()), TICK_MS);
  }
}

export const clock = new Clock();
