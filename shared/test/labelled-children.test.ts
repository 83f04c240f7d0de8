import { Counter, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { LabelledChildren } from '../src/index.js';

describe('LabelledChildren', () => {
  it('looks each label combination up once and counts into the right series', async () => {
    const registry = new Registry();
    const counter = new Counter({
      name: 'test_total',
      help: 'test',
      labelNames: ['a', 'b'] as const,
      registers: [registry],
    });
    let made = 0;
    const children = new LabelledChildren((...labels) => {
      made++;
      return counter.labels(...labels);
    });
    children.get('x', 'y').inc();
    children.get('x', 'y').inc();
    children.get('xy', '').inc();
    expect(made).toBe(2);
    expect(children.get('x', 'y')).toBe(children.get('x', 'y'));
    const text = await registry.metrics();
    expect(text).toContain('test_total{a="x",b="y"} 2');
    expect(text).toContain('test_total{a="xy",b=""} 1');
  });
});
