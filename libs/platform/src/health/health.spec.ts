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
  async function start() {
    const module = await Test.createTestingModule({
      imports: [MetricsModule, SwitchModule, HealthModule.forRoot([SWITCH])],
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
