import { Global, Logger, Module, ServiceUnavailableException } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { MetricsModule, MetricsRegistry } from '../metrics/metrics';
import { HealthController, HealthModule, type ReadinessCheck } from './health';

/** A dependency the test turns on and off. */
class Switch implements ReadinessCheck {
  up = true;
  constructor(readonly name = 'switch') {}
  check(): Promise<void> {
    return this.up ? Promise.resolve() : Promise.reject(new Error('switched off'));
  }
}

const SWITCH = 'Switch';
const OTHER_SWITCH = 'OtherSwitch';

@Global()
@Module({
  providers: [
    { provide: SWITCH, useFactory: () => new Switch() },
    { provide: OTHER_SWITCH, useFactory: () => new Switch('other') },
  ],
  exports: [SWITCH, OTHER_SWITCH],
})
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

describe('HealthController: what a change of the answer logs', () => {
  afterEach(() => jest.restoreAllMocks());

  it('given one check down past the grace and another failing within it, then only the one down is logged; then "Ready again"', async () => {
    jest.useFakeTimers({ now: 1_000_000, doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const log = jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    try {
      const module = await Test.createTestingModule({
        imports: [SwitchModule, HealthModule.forRoot([SWITCH, OTHER_SWITCH], 20_000)],
      }).compile();
      log.mockClear(); // Nest's own lines of the start
      const controller = module.get(HealthController);
      const first = module.get<Switch>(SWITCH);
      const other = module.get<Switch>(OTHER_SWITCH);
      const status = () =>
        controller.ready().then(
          () => 200,
          () => 503,
        );
      expect(await status()).toBe(200);

      first.up = false;
      expect(await status()).toBe(200);
      jest.setSystemTime(1_000_000 + 25_000);
      other.up = false;
      expect(await status()).toBe(503);
      expect(warn.mock.calls).toEqual([
        [
          { down: 'switch: switched off (failing for 25000 ms)' },
          'Not ready: a dependency failed past READINESS_GRACE_MS',
        ],
      ]);

      first.up = true;
      expect(await status()).toBe(200);
      expect(log.mock.calls).toEqual([['Ready again']]);
    } finally {
      jest.useRealTimers();
    }
  });
});
