import { Controller, Get, Global, Header, Injectable, Module } from '@nestjs/common';
import {
  AggregatorRegistry,
  collectDefaultMetrics,
  Histogram,
  type MetricObjectWithValues,
  type MetricValue,
  Registry,
} from 'prom-client';

/** Metrics kept by another thread of this process, as its registry's `getMetricsAsJSON()`. */
export type RemoteMetrics = () => Promise<MetricObjectWithValues<MetricValue<string>>[]>;

/** This service's Prometheus registry: default process metrics plus HTTP request durations. */
@Injectable()
export class MetricsRegistry {
  readonly registry = new Registry();
  readonly httpRequestDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration by method, route template and status code',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

  private readonly remotes: RemoteMetrics[] = [];

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  /** Serves the metrics of another thread (a worker's) with this registry's. */
  addRemote(remote: RemoteMetrics): void {
    this.remotes.push(remote);
  }

  /**
   * The exposition of this registry and its remotes. A name this registry has is served from it alone: process metrics
   * describe the one process every thread shares. A remote that cannot answer is left out of this scrape.
   */
  async scrape(): Promise<string> {
    const own = await this.registry.metrics();
    if (this.remotes.length === 0) return own;
    const names = new Set(this.registry.getMetricsAsArray().map((metric) => metric.name));
    const remote = (await Promise.all(this.remotes.map((read) => read().catch(() => []))))
      .flat()
      .filter((metric) => !names.has(metric.name));
    if (remote.length === 0) return own;
    return `${own.trimEnd()}\n${await AggregatorRegistry.aggregate([remote]).metrics()}`;
  }
}

@Controller('metrics')
export class MetricsController {
  constructor(private readonly metrics: MetricsRegistry) {}

  @Get()
  @Header('Content-Type', 'text/plain; version=0.0.4; charset=utf-8')
  @Header('Cache-Control', 'no-store')
  scrape(): Promise<string> {
    return this.metrics.scrape();
  }
}

/** Serves GET /metrics; other modules inject MetricsRegistry to add their own metrics. */
@Global()
@Module({ controllers: [MetricsController], providers: [MetricsRegistry], exports: [MetricsRegistry] })
export class MetricsModule {}
