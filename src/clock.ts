/** Time as the services see it; tests pin it. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
