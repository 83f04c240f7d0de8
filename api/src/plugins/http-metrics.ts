import { LabelledChildren } from '@voicegw/shared';
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
    // Bounded by routes × methods × statuses.
    const counters = new LabelledChildren((...labels) => requests.labels(...labels));
    const timers = new LabelledChildren((...labels) => duration.labels(...labels));

    app.addHook('onResponse', (request, reply, done) => {
      const { method } = request;
      const route = request.routeOptions.url ?? 'unmatched';
      counters.get(method, route, String(reply.statusCode)).inc();
      timers.get(method, route).observe(reply.elapsedTime / 1000);
      done();
    });
  },
  { name: 'http-metrics', dependencies: ['infrastructure'] },
);
