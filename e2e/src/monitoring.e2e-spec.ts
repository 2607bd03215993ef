import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { requireEnv } from '@lx/testing';
import { SERVICES, type Service } from './support/services';

const serviceUrl = (service: Service) => requireEnv(`${service.toUpperCase().replace(/-/g, '_')}_URL`);
const chartFile = (path: string) => readFileSync(join(__dirname, '../../helm/location-exchange/files', path), 'utf8');

/** Metrics Prometheus adds itself to every target: not the services' to expose. */
const SCRAPE_METRICS = new Set(['up']);

/** The names a Prometheus exposition declares, with the series names of its histograms and summaries. */
function exposedNames(exposition: string): Set<string> {
  const names = new Set<string>();
  for (const [, name, type] of exposition.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    names.add(name!);
    if (type === 'histogram') for (const suffix of ['_bucket', '_count', '_sum']) names.add(`${name}${suffix}`);
    if (type === 'summary') for (const suffix of ['_count', '_sum']) names.add(`${name}${suffix}`);
  }
  return names;
}

/** The chart's alerts: a Prometheus rule file whose every metric is written `<name>{__SELECTOR__…}`. */
function alertQueries(): string[] {
  return [...chartFile('prometheus/alerts.yaml').matchAll(/^ +expr: (?:\|\n)?((?:.+\n)+?)(?= +(?:for|labels):)/gm)].map(
    ([, expr]) => expr!,
  );
}

interface Dashboard {
  panels: { targets?: { expr: string }[] }[];
  templating: { list: { query?: string | { query: string } }[] };
}

/** The dashboard's panel queries and the queries of its variables. */
function dashboardQueries(): string[] {
  const dashboard = JSON.parse(chartFile('grafana/location-exchange.json')) as Dashboard;
  const panels = dashboard.panels.flatMap((panel) => (panel.targets ?? []).map((target) => target.expr));
  const variables = dashboard.templating.list.flatMap(({ query }) =>
    query === undefined || typeof query === 'string' ? [] : [query.query],
  );
  return [...panels, ...variables];
}

/** Every metric a query names: each selector `<name>{…}`, and the first argument of label_values(). */
function metricsOf(query: string): string[] {
  const selected = [...query.matchAll(/([a-zA-Z_:][a-zA-Z0-9_:]*)\{/g)].map(([, name]) => name!);
  const labelValues = [...query.matchAll(/label_values\(([a-zA-Z_:][a-zA-Z0-9_:]*)/g)].map(([, name]) => name!);
  return [...selected, ...labelValues];
}

/**
 * What the chart's alerts and dashboard query (helm/location-exchange/files/) is what the services expose: an alert
 * on a metric renamed or never registered would never fire, a panel would stay empty. .ci/helm/check.sh checks
 * that each query selects the release's series only.
 */
describe('monitoring: the alerts and the dashboard read metrics the services expose', () => {
  let exposed: Set<string>;
  let expositions: string;

  beforeAll(async () => {
    exposed = new Set<string>();
    expositions = '';
    for (const service of SERVICES) {
      const reply = await fetch(`${serviceUrl(service)}/metrics`);
      expect(reply.status).toBe(200);
      const text = await reply.text();
      expositions += text;
      for (const name of exposedNames(text)) exposed.add(name);
    }
  });

  const missing = (queries: string[]) =>
    [...new Set(queries.flatMap(metricsOf))].filter((name) => !SCRAPE_METRICS.has(name) && !exposed.has(name));

  it('finds every metric of every alert on some service', () => {
    const queries = alertQueries();
    expect(queries.length).toBeGreaterThanOrEqual(11);
    expect(new Set(queries.flatMap(metricsOf)).size).toBeGreaterThanOrEqual(8);
    expect(missing(queries)).toEqual([]);
  });

  it('finds every metric of every dashboard panel and variable on some service', () => {
    const queries = dashboardQueries();
    expect(queries.length).toBeGreaterThanOrEqual(20);
    expect(missing(queries)).toEqual([]);
  });

  it('exposes the series the alerts count with increase() before their first event (from 0, not born at 1)', () => {
    const series = [
      'projection_dead_letters_total{projection="location-read-model"}',
      'projection_dead_letters_total{projection="statistics"}',
      'webhook_deliveries_total{outcome="dead"}',
      'exports_total{format="csv",outcome="failed"}',
      'exports_total{format="json",outcome="failed"}',
    ];
    const lines = new Set(expositions.split('\n').map((line) => line.replace(/ [^ ]+$/, '')));
    expect(series.filter((name) => !lines.has(name))).toEqual([]);
  });

  it('tells a missing metric apart (the check can fail)', () => {
    expect(missing(['sum(rate(no_such_metric_total{job="$job"}[5m]))'])).toEqual(['no_such_metric_total']);
  });
});
