import { jest } from '@jest/globals';
import {
  BurstCollector,
  collectStartupGarbage,
  STARTUP_GARBAGE_CHECK_MS,
  STARTUP_GARBAGE_GROWTH_BYTES,
  STARTUP_GARBAGE_TRIES,
  type HeapReadings,
} from './young-generation.js';

const MB = 1024 * 1024;

/** Readings the test sets tick by tick; `collect` makes the heap what `afterCollect` says. */
class Readings implements HeapReadings {
  used = 50 * MB;
  total = 65 * MB;
  busy = 0;
  afterCollect = { used: 50 * MB, total: 65 * MB };
  collections = 0;
  heap = () => ({ used: this.used, total: this.total });
  utilization = () => this.busy;
  collect = () => {
    this.collections++;
    ({ used: this.used, total: this.total } = this.afterCollect);
  };
}

/** A burst: the heap committed 210 MB, of which 80 MB are still in use by the stalled streams. */
const afterBurst = (readings: Readings) => {
  readings.used = 80 * MB;
  readings.total = 210 * MB;
  readings.afterCollect = { used: 78 * MB, total: 90 * MB };
};

describe('BurstCollector', () => {
  it('collects once when the loop goes idle with the heap grown by a burst, then leaves it', () => {
    const readings = new Readings();
    const collector = new BurstCollector(readings);
    afterBurst(readings);
    expect(collector.tick()).toBe(true);
    expect(readings.total).toBe(90 * MB);
    // Nothing allocates while the streams stall: no further collection.
    expect(collector.tick()).toBe(false);
    expect(collector.tick()).toBe(false);
    expect(readings.collections).toBe(1);
  });

  it('collects again after a second burst grows the heap again', () => {
    const readings = new Readings();
    const collector = new BurstCollector(readings);
    afterBurst(readings);
    expect(collector.tick()).toBe(true);
    afterBurst(readings);
    expect(collector.tick()).toBe(true);
    expect(readings.collections).toBe(2);
  });

  it('leaves a busy loop to V8, however big the heap grew', () => {
    const readings = new Readings();
    const collector = new BurstCollector(readings);
    afterBurst(readings);
    readings.busy = 0.6;
    expect(collector.tick()).toBe(false);
    readings.busy = BurstCollector.IDLE_UTILIZATION + 0.01;
    expect(collector.tick()).toBe(false);
    expect(readings.collections).toBe(0);
  });

  it('does not collect a heap that is mostly in use, or one that did not grow', () => {
    const readings = new Readings();
    const collector = new BurstCollector(readings);
    // Grown, but in use: nothing to give back.
    readings.used = 200 * MB;
    readings.total = 210 * MB;
    expect(collector.tick()).toBe(false);
    // Much slack, but no growth since start (a heap that already was this size).
    const steady = new Readings();
    steady.used = 20 * MB;
    steady.total = 100 * MB;
    const idle = new BurstCollector(steady);
    expect(idle.tick()).toBe(false);
    expect(readings.collections + steady.collections).toBe(0);
  });

  it('does not repeat a collection that could not shrink the heap', () => {
    const readings = new Readings();
    const collector = new BurstCollector(readings);
    afterBurst(readings);
    readings.afterCollect = { used: 80 * MB, total: 205 * MB }; // fragmented: almost nothing given back
    expect(collector.tick()).toBe(true);
    expect(collector.tick()).toBe(false);
    expect(collector.tick()).toBe(false);
    expect(readings.collections).toBe(1);
  });

  it('counts growth from where V8 shrank the heap on its own', () => {
    const readings = new Readings();
    readings.total = 150 * MB;
    const collector = new BurstCollector(readings);
    readings.total = 60 * MB; // V8's memory reducer ran
    expect(collector.tick()).toBe(false);
    readings.used = 60 * MB;
    readings.total = 60 * MB + BurstCollector.SLACK_BYTES + BurstCollector.GROWTH_BYTES;
    expect(collector.tick()).toBe(true);
  });
});

describe('collectStartupGarbage', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('collects once, after the delay, on an idle loop', () => {
    const readings = new Readings();
    collectStartupGarbage(1000, readings);
    jest.advanceTimersByTime(999);
    expect(readings.collections).toBe(0);
    jest.advanceTimersByTime(1);
    expect(readings.collections).toBe(1);
    jest.advanceTimersByTime(60_000);
    expect(readings.collections).toBe(1);
  });

  it('waits while the loop is busy and collects once it goes idle', () => {
    const readings = new Readings();
    readings.busy = 0.9;
    collectStartupGarbage(1000, readings);
    jest.advanceTimersByTime(1000 + 10 * STARTUP_GARBAGE_CHECK_MS);
    expect(readings.collections).toBe(0);
    readings.busy = 0.01;
    jest.advanceTimersByTime(STARTUP_GARBAGE_CHECK_MS);
    expect(readings.collections).toBe(1);
  });

  it('leaves a loop that stays busy to V8', () => {
    const readings = new Readings();
    readings.busy = 0.9;
    collectStartupGarbage(1000, readings);
    jest.advanceTimersByTime(1000 + (STARTUP_GARBAGE_TRIES + 5) * STARTUP_GARBAGE_CHECK_MS);
    readings.busy = 0;
    jest.advanceTimersByTime(60_000);
    expect(readings.collections).toBe(0);
  });
  it('leaves a heap a workload grew since ready to V8, even once the loop idles', () => {
    const readings = new Readings();
    readings.busy = 0.9;
    collectStartupGarbage(1000, readings);
    jest.advanceTimersByTime(1000);
    readings.used += STARTUP_GARBAGE_GROWTH_BYTES + MB;
    readings.busy = 0;
    jest.advanceTimersByTime(60_000);
    expect(readings.collections).toBe(0);
  });
});
