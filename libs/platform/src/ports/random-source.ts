/** Port: uniform random numbers in [0, 1), such as the jitter of a retry schedule; tests fix them. */
export abstract class RandomSource {
  abstract next(): number;
}

export class MathRandom extends RandomSource {
  next(): number {
    return Math.random();
  }
}
