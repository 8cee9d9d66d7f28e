import { gpsObjectsApi } from '@shared/api/gps';
import { Card, Descriptions, Space, Switch, Tag, Typography } from 'antd';
import dayjs from 'dayjs';
import { useEffect, useState } from 'react';
import type { useTranslation } from 'react-i18next';
import { ApiError, call } from '../../api';
import { failureText } from '../../use-api';
import { type MapObject, objectState, STATE_COLOR } from './object-state';

/** The address shown: the geocoder's (null: it knows none), its failure, or none asked (no geocoder, offline). */
type Address = { address: string | null } | { failure: string } | undefined;

/**
 * The chosen object's card: state, last fix and receipt, speed, battery (when the tracker reports
 * one), the address (when a geocoder is set), the follow switch.
 */
export function ObjectCard({
  object,
  follow,
  onFollow,
  online,
  t,
}: {
  object: MapObject;
  follow: boolean;
  onFollow: (on: boolean) => void;
  online: boolean;
  t: ReturnType<typeof useTranslation>['t'];
}) {
  const state = objectState(object);
  const time = (value: string | null) => (value ? dayjs(value).format('DD.MM.YYYY HH:mm:ss') : t('gps.never'));
  const battery = object.lastPosition?.batteryPercent;
  // Asked again when the object has moved about 100 m, not on every fix.
  const place = object.lastPosition
    ? `${object.lastPosition.lat.toFixed(3)},${object.lastPosition.lon.toFixed(3)}`
    : undefined;
  const [address, setAddress] = useState<Address>();
  useEffect(() => {
    setAddress(undefined);
    if (!online || !place) return;
    let current = true;
    call(gpsObjectsApi.getGpsObjectAddress, { params: { objectId: object.id } })
      .then((answer) => current && setAddress({ address: answer.address }))
      .catch((caught: unknown) => {
        if (!current) return;
        // No geocoder configured: the card simply has no address line.
        const unconfigured = caught instanceof ApiError && caught.problem.code === 'geocoder_not_configured';
        setAddress(unconfigured ? undefined : { failure: failureText(caught, t) });
      });
    return () => {
      current = false;
    };
  }, [object.id, place, online, t]);
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
        {typeof battery === 'number' && (
          <Descriptions.Item label={t('gps.battery')}>
            <span data-testid="gps-battery">{Math.round(battery)} %</span>
          </Descriptions.Item>
        )}
        {address && (
          <Descriptions.Item label={t('gps.address')}>
            <span data-testid="gps-address">
              {'failure' in address ? (
                <Typography.Text type="warning">{address.failure}</Typography.Text>
              ) : (
                (address.address ?? t('gps.addressUnknown'))
              )}
            </span>
          </Descriptions.Item>
        )}
      </Descriptions>
      <Space>
        <Switch checked={follow} onChange={onFollow} aria-label={t('gps.follow')} />
        {t('gps.follow')}
      </Space>
    </Card>
  );
}
