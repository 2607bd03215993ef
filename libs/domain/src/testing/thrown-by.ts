/** The error `action` throws, for asserting its type, code and details in one place; fails when nothing is thrown. */
export function thrownBy(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  throw new Error('expected an error to be thrown');
}
