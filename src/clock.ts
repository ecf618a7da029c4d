/**
 * The clock port. The core never reads the time itself: the driver stamps
 * events with its clock, and a store judges leases by its own.
 *
 * @module
 */

/** Milliseconds since the Unix epoch. */
export interface Clock {
  now(): number;
}

/** The system clock (the default at the edge). */
export const systemClock: Clock = { now: () => Date.now() };

/** A clock that moves only when told to (tests, simulations). */
export interface ManualClock extends Clock {
  /** Moves the clock forward by `ms`. */
  advance(ms: number): void;
  /** Sets the clock. */
  set(ms: number): void;
}

/** A {@link ManualClock} starting at `start` (default 2026-01-01T00:00:00Z). */
export function manualClock(start = Date.UTC(2026, 0, 1)): ManualClock {
  let t = start;
  return {
    now: () => t,
    advance: (ms) => {
      t += ms;
    },
    set: (ms) => {
      t = ms;
    },
  };
}
