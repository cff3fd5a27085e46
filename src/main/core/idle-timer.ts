// Ends what sits idle (the results decoder's thread, the calls threads) after a while: armed when the
// last piece of work is answered, disarmed when work comes. It never keeps the process alive.
export interface IdleTimer {
  /** Starts the wait again from now. */
  arm(): void;
  disarm(): void;
}

export function idleTimer(ms: number, onIdle: () => void): IdleTimer {
  let timer: ReturnType<typeof setTimeout> | null = null;
  const disarm = (): void => {
    if (timer) clearTimeout(timer);
    timer = null;
  };
  return {
    arm() {
      disarm();
      timer = setTimeout(() => {
        timer = null;
        onIdle();
      }, ms);
      timer.unref();
    },
    disarm,
  };
}
