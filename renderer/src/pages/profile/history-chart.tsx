import type { HistoryPeriod } from '@shared/api/profile';
import { Table } from 'antd';
import { useTranslation } from 'react-i18next';
import { bucketLabel, chartValues, type HistoryBucket, niceTicks } from './history-model';

const WIDTH = 720;
const HEIGHT = 240;
const MARGIN = { top: 24, right: 24, bottom: 36, left: 64 };
const PLOT_WIDTH = WIDTH - MARGIN.left - MARGIN.right;
/** Keeps the first and last points (and their labels) off the value axis and the edge. */
const INSET = 24;
const PLOT_HEIGHT = HEIGHT - MARGIN.top - MARGIN.bottom;
/** Past this many points the values stay in tooltips and the table, or they would overlap. */
const MAX_VALUE_LABELS = 16;
/** Axis labels closer than this (in chart units) to the previous one are left out. */
const MIN_LABEL_GAP = 56;
const LINE_COLOR = '#1677ff';

interface Point {
  x: number;
  y: number;
  bucket: HistoryBucket;
  value: number;
  short: string;
  full: string;
}

/**
 * The averages of a `history-number` field over time as a plain SVG line chart: value axis with
 * round ticks, period labels in the user's language, each point's value shown (and in a tooltip on
 * hover, from each point's title). The chart is one labelled image; the same numbers stand beside
 * it as a table, for screen readers, keyboards and exact reading.
 */
export function HistoryChart({
  fieldName,
  period,
  buckets,
}: {
  fieldName: string;
  period: HistoryPeriod;
  buckets: readonly HistoryBucket[];
}) {
  const { t, i18n } = useTranslation();
  const locale = i18n.language;
  const numbers = new Intl.NumberFormat(locale, { maximumFractionDigits: 2 });
  const exact = new Intl.NumberFormat(locale, { maximumFractionDigits: 6 });
  const templates = {
    week: (date: string) => t('profile.history.week', { date }),
    quarter: (quarter: number, year: number) => t('profile.history.quarter', { quarter, year }),
  };

  const values = chartValues(buckets);
  const ticks = niceTicks(Math.min(...values), Math.max(...values));
  const low = ticks[0] ?? 0;
  const high = ticks.at(-1) ?? 1;
  const yOf = (value: number) => MARGIN.top + PLOT_HEIGHT - ((value - low) / (high - low || 1)) * PLOT_HEIGHT;
  // Placed by time, so gaps between periods without values stay visible.
  const times = buckets.map((bucket) => Date.parse(bucket.start));
  const first = Math.min(...times);
  const span = Math.max(...times) - first;
  const xOf = (time: number) =>
    MARGIN.left + INSET + (span === 0 ? PLOT_WIDTH / 2 - INSET : ((time - first) / span) * (PLOT_WIDTH - 2 * INSET));

  const points: Point[] = buckets.map((bucket, index) => ({
    x: xOf(times[index] ?? first),
    y: yOf(values[index] ?? 0),
    bucket,
    value: values[index] ?? 0,
    ...bucketLabel(bucket.start, period, locale, templates),
  }));
  let lastLabelX = Number.NEGATIVE_INFINITY;
  const labelled = points.map((point) => {
    if (point.x - lastLabelX < MIN_LABEL_GAP) return false;
    lastLabelX = point.x;
    return true;
  });
  const pointText = (point: Point) =>
    t('profile.history.point', { label: point.full, average: exact.format(point.value), count: point.bucket.count });
  const summary = t('profile.history.chart', {
    field: fieldName,
    period: t(`profile.periods.${period}`),
    count: points.length,
    first: points[0]?.full ?? '',
    last: points.at(-1)?.full ?? '',
  });

  return (
    <div style={{ display: 'flex', flexWrap: 'wrap', gap: 16, alignItems: 'flex-start' }}>
      <svg
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        width="100%"
        role="img"
        aria-label={summary}
        data-testid="history-chart"
        style={{ flex: '2 1 420px', minWidth: 0, maxWidth: WIDTH, fontSize: 11, fontFamily: 'inherit' }}
      >
        {ticks.map((tick) => (
          <g key={tick}>
            <line
              x1={MARGIN.left}
              x2={WIDTH - MARGIN.right}
              y1={yOf(tick)}
              y2={yOf(tick)}
              stroke="#f0f0f0"
              strokeWidth={1}
            />
            <text x={MARGIN.left - 8} y={yOf(tick)} textAnchor="end" dominantBaseline="middle" fill="#595959">
              {numbers.format(tick)}
            </text>
          </g>
        ))}
        <line
          x1={MARGIN.left}
          x2={MARGIN.left}
          y1={MARGIN.top}
          y2={MARGIN.top + PLOT_HEIGHT}
          stroke="#8c8c8c"
          strokeWidth={1}
        />
        <line
          x1={MARGIN.left}
          x2={WIDTH - MARGIN.right}
          y1={MARGIN.top + PLOT_HEIGHT}
          y2={MARGIN.top + PLOT_HEIGHT}
          stroke="#8c8c8c"
          strokeWidth={1}
        />
        {points.map((point, index) =>
          labelled[index] ? (
            <text
              key={point.bucket.start}
              x={point.x}
              y={MARGIN.top + PLOT_HEIGHT + 18}
              textAnchor="middle"
              fill="#595959"
              data-testid="history-axis-label"
            >
              {point.short}
            </text>
          ) : null,
        )}
        {points.length > 1 && (
          <polyline
            points={points.map((point) => `${point.x},${point.y}`).join(' ')}
            fill="none"
            stroke={LINE_COLOR}
            strokeWidth={2}
          />
        )}
        {points.map((point) => (
          <circle
            key={point.bucket.start}
            cx={point.x}
            cy={point.y}
            r={4}
            fill="#fff"
            stroke={LINE_COLOR}
            strokeWidth={2}
            data-testid="history-point"
          >
            <title>{pointText(point)}</title>
          </circle>
        ))}
        {points.length <= MAX_VALUE_LABELS &&
          points.map((point) => (
            <text
              key={point.bucket.start}
              x={point.x}
              y={point.y - 10}
              textAnchor="middle"
              fill="#262626"
              data-testid="history-value"
            >
              {numbers.format(point.value)}
            </text>
          ))}
      </svg>
      <section aria-label={t('profile.history.table')} style={{ flex: '1 1 260px', minWidth: 0 }}>
        <Table
          size="small"
          pagination={false}
          scroll={{ y: HEIGHT - 40 }}
          rowKey="start"
          dataSource={points.map((point) => ({
            start: point.bucket.start,
            label: point.full,
            average: exact.format(point.value),
            count: point.bucket.count,
          }))}
          columns={[
            { title: t('profile.history.column'), dataIndex: 'label' },
            { title: t('profile.history.average'), dataIndex: 'average', align: 'right' },
            { title: t('profile.history.count'), dataIndex: 'count', align: 'right' },
          ]}
        />
      </section>
    </div>
  );
}
