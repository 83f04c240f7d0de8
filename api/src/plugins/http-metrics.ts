import fp from 'fastify-plugin';
import { Counter, Histogram } from 'prom-client';

/** Request counts and latencies by route pattern (never by raw URL: ids would explode cardinality). */
export default fp(
  async (app) => {
    const requests = new Counter({
      name: 'voicegw_http_requests_total',
      help: 'HTTP requests answered, by method, route pattern and status.',
      labelNames: ['method', 'route', 'status'] as const,
      registers: [app.metrics],
    });
    const duration = new Histogram({
      name: 'voicegw_http_request_duration_seconds',
      help: 'HTTP request latency, by method and route pattern.',
      labelNames: ['method', 'route'] as const,
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
      registers: [app.metrics],
    });

    // The labelled children, looked up once per method, route and status: prom-client hashes
    // the label set on every inc/observe otherwise. Bounded by routes × methods × statuses.
    const children = new Map<string, RouteMetrics>();
    const metricsOf = (method: string, route: string): RouteMetrics => {
      const key = `${method} ${route}`;
      let metrics = children.get(key);
      if (!metrics) {
        metrics = { duration: duration.labels(method, route), requests: new Map() };
        children.set(key, metrics);
      }
      return metrics;
    };

    app.addHook('onResponse', (request, reply, done) => {
      const { method } = request;
      const route = request.routeOptions.url ?? 'unmatched';
      const metrics = metricsOf(method, route);
      const status = reply.statusCode;
      let counter = metrics.requests.get(status);
      if (!counter) {
        counter = requests.labels(method, route, String(status));
        metrics.requests.set(status, counter);
      }
      counter.inc();
      metrics.duration.observe(reply.elapsedTime / 1000);
      done();
    });
  },
  { name: 'http-metrics', dependencies: ['infrastructure'] },
);

interface RouteMetrics {
  readonly duration: Histogram.Internal<'method' | 'route'>;
  readonly requests: Map<number, Counter.Internal>;
}
