import type { HistoryPeriod } from '@shared/api/profile';

/** The server cuts history buckets at Moscow midnights, so their labels are read in that zone too. */
export const HISTORY_TIME_ZONE = 'Europe/Moscow';

export const HISTORY_PERIODS: readonly HistoryPeriod[] = ['week', 'month', 'quarter', 'year'];

/** One bucket of a `history-number` field as the server sends it. */
export interface HistoryBucket {
  start: string;
  average: string;
  count: number;
}

/** Calendar year, month (1–12) and day of an instant, in the history's time zone. */
export function calendarParts(instant: string): { year: number; month: number; day: number } {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: HISTORY_TIME_ZONE,
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
  }).formatToParts(new Date(instant));
  const part = (type: Intl.DateTimeFormatPartTypes) => Number(parts.find((p) => p.type === type)?.value);
  return { year: part('year'), month: part('month'), day: part('day') };
}

/** Words the labels need that Intl does not provide (there is no quarter format). */
export interface LabelTemplates {
  week: (date: string) => string;
  quarter: (quarter: number, year: number) => string;
}

/**
 * Names the bucket starting at `start`: `short` for the axis, `full` for tooltips and the table.
 * Dates are written in `locale`, read in Moscow time like the buckets themselves.
 */
export function bucketLabel(
  start: string,
  period: HistoryPeriod,
  locale: string,
  templates: LabelTemplates,
): { short: string; full: string } {
  const date = new Date(start);
  const format = (options: Intl.DateTimeFormatOptions) =>
    new Intl.DateTimeFormat(locale, { timeZone: HISTORY_TIME_ZONE, ...options }).format(date);
  const { year, month } = calendarParts(start);
  switch (period) {
    case 'week':
      return {
        short: format({ day: 'numeric', month: 'short' }),
        full: templates.week(format({ day: 'numeric', month: 'long', year: 'numeric' })),
      };
    case 'month':
      return { short: format({ month: 'short', year: '2-digit' }), full: format({ month: 'long', year: 'numeric' }) };
    case 'quarter': {
      const label = templates.quarter(Math.floor((month - 1) / 3) + 1, year);
      return { short: label, full: label };
    }
    case 'year':
      return { short: String(year), full: String(year) };
  }
}

/**
 * About `count` round tick values covering [min, max] (steps of 1, 2 or 5 times a power of ten),
 * so the value axis reads 0, 20, 40 rather than 3.7, 11.2, 18.7.
 */
export function niceTicks(min: number, max: number, count = 5): number[] {
  if (!Number.isFinite(min) || !Number.isFinite(max)) return [];
  if (min === max) {
    // One value (or all equal): a band around it, so the point sits mid-height.
    const pad = min === 0 ? 1 : Math.abs(min) / 2;
    return niceTicks(min - pad, max + pad, count);
  }
  const rough = (max - min) / Math.max(1, count - 1);
  const power = 10 ** Math.floor(Math.log10(rough));
  let step = 10 * power;
  for (const factor of [1, 2, 5, 10]) {
    if (factor * power >= rough) {
      step = factor * power;
      break;
    }
  }
  const first = Math.floor(min / step) * step;
  const decimals = Math.max(0, -Math.floor(Math.log10(step)));
  const ticks: number[] = [];
  for (let index = 0; index < 100; index++) {
    // Multiplied, not summed, and rounded to the step's decimals: sums drift (0.30000000000000004).
    const value = Number((first + index * step).toFixed(decimals));
    ticks.push(value);
    if (value >= max) break;
  }
  return ticks;
}

/** The buckets with their averages as numbers, ready to plot. */
export function chartValues(buckets: readonly HistoryBucket[]): number[] {
  return buckets.map((bucket) => Number(bucket.average));
}
