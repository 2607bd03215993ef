import { Recent } from './recent';

describe('Recent', () => {
  let now = 1_000;
  const clock = () => now;

  it('reuses a load for its freshness, shares it while in flight, and loads again after', async () => {
    let loads = 0;
    const recent = new Recent(100, () => Promise.resolve((loads += 1)), clock);
    const [first, second] = await Promise.all([recent.get(), recent.get()]);
    expect([first, second, loads]).toEqual([1, 1, 1]);
    now += 100;
    expect(await recent.get()).toBe(1);
    now += 1;
    expect(await recent.get()).toBe(2);
  });

  it('forgets a failed load at once, and everything on forget()', async () => {
    let fail = true;
    let loads = 0;
    const recent = new Recent(
      100,
      () => {
        loads += 1;
        return fail ? Promise.reject(new Error('down')) : Promise.resolve(loads);
      },
      clock,
    );
    await expect(recent.get()).rejects.toThrow('down');
    fail = false;
    expect(await recent.get()).toBe(2);
    recent.forget();
    expect(await recent.get()).toBe(3);
  });
});
