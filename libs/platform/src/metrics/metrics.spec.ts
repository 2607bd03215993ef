import { Counter, Histogram, Registry } from 'prom-client';
import { MetricsRegistry } from './metrics';

/** A worker's registry as its thread would hold it: process metrics of its own, and the metrics it keeps. */
function aWorkerRegistry() {
  const registry = new Registry();
  const published = new Counter({ name: 'relay_test_published_total', help: 'published', registers: [registry] });
  const delay = new Histogram({ name: 'relay_test_delay_seconds', help: 'delay', buckets: [1], registers: [registry] });
  const processLike = new Counter({ name: 'process_cpu_user_seconds_total', help: 'not ours', registers: [registry] });
  published.inc(3);
  delay.observe(0.5);
  processLike.inc(1_000_000);
  return registry;
}

/** The metric families of an exposition (their values move with the process). */
const familiesOf = (text: string) => text.split('\n').filter((line) => line.startsWith('# TYPE '));

describe('MetricsRegistry', () => {
  it('given no remote, when scraped, then it serves its own registry', async () => {
    const metrics = new MetricsRegistry();

    expect(familiesOf(await metrics.scrape())).toEqual(familiesOf(await metrics.registry.metrics()));
  });

  it('given a remote, when scraped, then its metrics are served beside the own ones, a name it shares only once', async () => {
    const metrics = new MetricsRegistry();
    const worker = aWorkerRegistry();
    metrics.addRemote(() => worker.getMetricsAsJSON());

    const text = await metrics.scrape();

    expect(text).toMatch(/^relay_test_published_total 3$/m);
    expect(text).toMatch(/^relay_test_delay_seconds_bucket\{le="1"\} 1$/m);
    expect(text).toContain('# TYPE http_request_duration_seconds histogram');
    expect(text.match(/^# TYPE process_cpu_user_seconds_total /gm)).toHaveLength(1);
    expect(text).not.toMatch(/^process_cpu_user_seconds_total 1000000$/m);
  });

  it('given a remote that fails, when scraped, then the own metrics are still served', async () => {
    const metrics = new MetricsRegistry();
    metrics.addRemote(() => Promise.reject(new Error('worker gone')));

    const families = familiesOf(await metrics.scrape());

    expect(families).toEqual(familiesOf(await metrics.registry.metrics()));
    expect(families).toContain('# TYPE http_request_duration_seconds histogram');
  });
});
