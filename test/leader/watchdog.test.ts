import { describe, expect, it } from 'vitest';
import { Watchdog } from '../../src/leader/watchdog.js';
import { FakeClock } from '../helpers/fake-clock.js';

describe('Watchdog', () => {
  it('expires a watch at its deadline, with the duration last armed', async () => {
    const clock = new FakeClock();
    const w = new Watchdog(clock);
    const expired: [string, number][] = [];
    w.add(100, (ms) => expired.push(['a', ms]));
    const b = w.add(300, (ms) => expired.push(['b', ms]));
    await clock.advance(99);
    expect(expired).toEqual([]);
    await clock.advance(1);
    expect(expired).toEqual([['a', 100]]);
    w.arm(b, 500); // pushed later from t=100: due at 600
    await clock.advance(499);
    expect(expired).toEqual([['a', 100]]);
    await clock.advance(1);
    expect(expired).toEqual([
      ['a', 100],
      ['b', 500],
    ]);
  });

  it('a removed watch never expires; a new one after an idle spell still does', async () => {
    const clock = new FakeClock();
    const w = new Watchdog(clock);
    let fired = 0;
    const a = w.add(100, () => fired++);
    w.remove(a);
    await clock.advance(1000);
    expect(fired).toBe(0);
    w.add(50, () => fired++);
    await clock.advance(50);
    expect(fired).toBe(1);
  });

  it('a watch re-armed to an earlier deadline fires then, before the others', async () => {
    const clock = new FakeClock();
    const w = new Watchdog(clock);
    const fired: string[] = [];
    w.add(300, () => fired.push('late'));
    const b = w.add(1000, () => fired.push('rearmed'));
    w.add(100, () => fired.push('early'));
    await clock.advance(100);
    expect(fired).toEqual(['early']);
    w.arm(b, 50); // due at 150, before 'late'
    await clock.advance(50);
    expect(fired).toEqual(['early', 'rearmed']);
    await clock.advance(150);
    expect(fired).toEqual(['early', 'rearmed', 'late']);
  });

  it('watches added by an expiring callback are watched too', async () => {
    const clock = new FakeClock();
    const w = new Watchdog(clock);
    const fired: number[] = [];
    const t0 = clock.now();
    w.add(100, () => {
      fired.push(clock.now() - t0);
      w.add(20, () => fired.push(clock.now() - t0));
    });
    await clock.advance(200);
    expect(fired).toEqual([100, 120]);
  });

  it('stops after close', async () => {
    const clock = new FakeClock();
    const w = new Watchdog(clock);
    let fired = 0;
    w.add(100, () => fired++);
    w.close();
    await clock.advance(1000);
    w.add(10, () => fired++);
    await clock.advance(1000);
    expect(fired).toBe(0);
  });
});
