import { Card, Descriptions, Space, Switch, Tag } from 'antd';
import dayjs from 'dayjs';
import type { useTranslation } from 'react-i18next';
import { type MapObject, objectState, STATE_COLOR } from './object-state';

/** The chosen object's card: state, last fix and receipt, speed, the follow switch. */
export function ObjectCard({
  object,
  follow,
  onFollow,
  t,
}: {
  object: MapObject;
  follow: boolean;
  onFollow: (on: boolean) => void;
  t: ReturnType<typeof useTranslation>['t'];
}) {
  const state = objectState(object);
  const time = (value: string | null) => (value ? dayjs(value).format('DD.MM.YYYY HH:mm:ss') : t('gps.never'));
  return (
    <Card
      size="small"
      title={object.name}
      data-testid="gps-object-card"
      extra={<Tag color={STATE_COLOR[state]}>{t(`gps.${state}`)}</Tag>}
    >
      <Descriptions size="small" column={1}>
        <Descriptions.Item label={t('gps.lastFix')}>{time(object.last_gps_fix_at)}</Descriptions.Item>
        <Descriptions.Item label={t('gps.lastSeen')}>{time(object.last_seen)}</Descriptions.Item>
        <Descriptions.Item label={t('gps.speed')}>
          {t('gps.kmh', { value: Math.round(object.lastPosition?.speedKmh ?? 0) })}
        </Descriptions.Item>
      </Descriptions>
      <Space>
        <Switch checked={follow} onChange={onFollow} aria-label={t('gps.follow')} />
        {t('gps.follow')}
      </Space>
    </Card>
  );
}
