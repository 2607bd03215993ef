/** Port: the current time, injected so rules and tests never read the wall clock themselves. */
export abstract class Clock {
  abstract now(): Date;
}

export class SystemClock extends Clock {
  now(): Date {
    return new Date();
  }
}
