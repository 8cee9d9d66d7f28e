import { type HistoryPeriod, type ProfileField, profileApi } from '@shared/api/profile';
import { Alert, Button, Card, Empty, Segmented, Spin, Typography } from 'antd';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useCall } from '../../use-api';
import { HistoryChart } from './history-chart';
import { HISTORY_PERIODS } from './history-model';

/**
 * The history of one `history-number` field of a user, grouped by the chosen period. The server
 * groups and averages; `refreshKey` changes when new values were saved, to load them.
 */
export function HistoryCard({
  userId,
  field,
  refreshKey,
}: {
  userId: string;
  field: ProfileField;
  refreshKey: number;
}) {
  const { t } = useTranslation();
  const [period, setPeriod] = useState<HistoryPeriod>('month');
  const history = useCall(profileApi.getUserFieldHistory, { params: { userId, fieldId: field.id }, query: { period } });
  const { reload } = history;
  const seenKey = useRef(refreshKey);
  useEffect(() => {
    if (seenKey.current === refreshKey) return;
    seenKey.current = refreshKey;
    reload();
  }, [refreshKey, reload]);

  // A bucket list of another period, still on screen while the new one loads, would be mislabelled.
  const buckets = history.data?.period === period ? history.data.buckets : undefined;
  return (
    <Card
      size="small"
      title={t('profile.history.title', { field: field.name })}
      data-testid={`history-${field.name}`}
      extra={
        <Segmented<HistoryPeriod>
          size="small"
          aria-label={t('profile.history.period')}
          value={period}
          onChange={setPeriod}
          options={HISTORY_PERIODS.map((value) => ({ value, label: t(`profile.periods.${value}`) }))}
        />
      }
    >
      <Typography.Paragraph type="secondary" style={{ fontSize: 12, marginBottom: 8 }}>
        {t('profile.history.aggregate', { period: t(`profile.periodsIn.${period}`) })}
      </Typography.Paragraph>
      {history.error ? (
        <Alert
          type="error"
          role="alert"
          title={history.error}
          action={
            <Button size="small" onClick={reload}>
              {t('profile.errors.retry')}
            </Button>
          }
        />
      ) : !buckets ? (
        <Spin description={t('profile.loading')} />
      ) : buckets.length === 0 ? (
        <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('profile.history.empty')} />
      ) : (
        <HistoryChart fieldName={field.name} period={period} buckets={buckets} />
      )}
    </Card>
  );
}
