/** Port: the current time. Rules never read the system clock themselves, so tests can fix it. */
export abstract class Clock {
  abstract now(): Date;
}

export class SystemClock extends Clock {
  now(): Date {
    return new Date();
  }
}
