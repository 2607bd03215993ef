import { Global, Module, ServiceUnavailableException } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { MetricsModule, MetricsRegistry } from '../metrics/metrics';
import { HealthController, HealthModule, type ReadinessCheck } from './health';

/** A dependency the test turns on and off. */
class Switch implements ReadinessCheck {
  readonly name = 'switch';
  up = true;
  check(): Promise<void> {
    return this.up ? Promise.resolve() : Promise.reject(new Error('switched off'));
  }
}

const SWITCH = 'Switch';

@Global()
@Module({ providers: [{ provide: SWITCH, useClass: Switch }], exports: [SWITCH] })
class SwitchModule {}

describe('HealthController: readiness', () => {
  async function start(graceMs = 0) {
    const module = await Test.createTestingModule({
      imports: [MetricsModule, SwitchModule, HealthModule.forRoot([SWITCH], graceMs)],
    }).compile();
    const changes = async () =>
      (await module.get(MetricsRegistry).registry.getSingleMetric('health_readiness_changes_total')?.get())?.values[0]
        ?.value;
    return { controller: module.get(HealthController), dependency: module.get<Switch>(SWITCH), changes };
  }

  const answer = (controller: HealthController) =>
    controller.ready().then(
      () => 200,
      (error: unknown) => (error instanceof ServiceUnavailableException ? 503 : 500),
    );

  it('given a dependency that goes away and comes back, then each change of the answer is counted once', async () => {
    const { controller, dependency, changes } = await start();
    expect(await changes()).toBe(0);

    expect(await answer(controller)).toBe(200);
    expect(await answer(controller)).toBe(200);
    expect(await changes()).toBe(0);

    dependency.up = false;
    expect(await answer(controller)).toBe(503);
    expect(await answer(controller)).toBe(503);
    expect(await changes()).toBe(1);

    dependency.up = true;
    expect(await answer(controller)).toBe(200);
    expect(await changes()).toBe(2);
  });

  it('given a first answer of 503, then it is no change (nothing came before it)', async () => {
    const { controller, dependency, changes } = await start();
    dependency.up = false;
    expect(await answer(controller)).toBe(503);
    expect(await changes()).toBe(0);
  });
});

describe('HealthController: the readiness grace', () => {
  async function start(graceMs: number) {
    const module = await Test.createTestingModule({
      imports: [SwitchModule, HealthModule.forRoot([SWITCH], graceMs)],
    }).compile();
    return { controller: module.get(HealthController), dependency: module.get<Switch>(SWITCH) };
  }

  const answer = (controller: HealthController) =>
    controller.ready().then(
      (report) => ({ status: 200, switch: report.details['switch'] }),
      (error: unknown) => ({ status: error instanceof ServiceUnavailableException ? 503 : 500 }),
    );

  afterEach(() => jest.useRealTimers());

  it('given a dependency that never answered, then the answer is 503 at once (a starting pod gets no requests)', async () => {
    const { controller, dependency } = await start(20_000);
    dependency.up = false;
    expect((await answer(controller)).status).toBe(503);
  });

  it('given a dependency that answered, then its failure is reported with 200 for the grace, and 503 after it', async () => {
    jest.useFakeTimers({ now: 1_000_000, doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    const { controller, dependency } = await start(20_000);
    expect(await answer(controller)).toEqual({ status: 200, switch: { status: 'up' } });

    dependency.up = false;
    expect(await answer(controller)).toEqual({
      status: 200,
      switch: { status: 'up', failing: 'switched off', failingSinceMs: 0 },
    });
    jest.setSystemTime(1_000_000 + 19_999);
    expect(await answer(controller)).toEqual({
      status: 200,
      switch: { status: 'up', failing: 'switched off', failingSinceMs: 19_999 },
    });
    jest.setSystemTime(1_000_000 + 20_000);
    expect((await answer(controller)).status).toBe(503);

    // Back: up at once, and a new failure has the whole grace again.
    dependency.up = true;
    expect(await answer(controller)).toEqual({ status: 200, switch: { status: 'up' } });
    dependency.up = false;
    jest.setSystemTime(1_000_000 + 60_000);
    expect((await answer(controller)).status).toBe(200);
  });
});
