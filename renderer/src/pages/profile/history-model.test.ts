import { describe, expect, it } from 'vitest';
import { bucketLabel, calendarParts, chartValues, niceTicks } from './history-model';

const templates = {
  week: (date: string) => `week of ${date}`,
  quarter: (quarter: number, year: number) => `Q${quarter} ${year}`,
};

describe('history buckets', () => {
  it('reads a bucket start in Moscow time, where the server cut it', () => {
    // 21:00 UTC on December 31 is midnight of January 1 in Moscow.
    expect(calendarParts('2025-12-31T21:00:00.000Z')).toEqual({ year: 2026, month: 1, day: 1 });
  });

  it('names months, quarters and years of the Moscow calendar', () => {
    const start = '2026-03-31T21:00:00.000Z'; // April 1, 2026 in Moscow
    expect(bucketLabel(start, 'month', 'en', templates).full).toBe('April 2026');
    expect(bucketLabel(start, 'quarter', 'en', templates).full).toBe('Q2 2026');
    expect(bucketLabel('2025-12-31T21:00:00.000Z', 'year', 'en', templates).short).toBe('2026');
  });

  it('names weeks by their Monday, in the user’s language', () => {
    const monday = '2026-04-19T21:00:00.000Z'; // Monday, April 20, 2026 in Moscow
    expect(bucketLabel(monday, 'week', 'en', templates).full).toBe('week of April 20, 2026');
    expect(bucketLabel(monday, 'week', 'ru', templates).full).toBe('week of 20 апреля 2026 г.');
  });

  it('plots the averages as numbers', () => {
    expect(chartValues([{ start: '2026-01-01T00:00:00Z', average: '43.75', count: 4 }])).toEqual([43.75]);
  });
});

describe('value axis ticks', () => {
  it('steps by 1, 2 or 5 times a power of ten and covers the range', () => {
    expect(niceTicks(10, 60)).toEqual([0, 20, 40, 60]);
    expect(niceTicks(10, 61)).toEqual([0, 20, 40, 60, 80]);
    expect(niceTicks(0.1, 0.9)).toEqual([0, 0.2, 0.4, 0.6, 0.8, 1]);
  });

  it('puts a single value mid-axis', () => {
    const ticks = niceTicks(50, 50);
    expect(ticks[0]).toBeLessThan(50);
    expect(ticks.at(-1)).toBeGreaterThan(50);
  });
});
