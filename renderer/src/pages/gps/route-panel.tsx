import { gpsRoutesApi, type RouteProgress } from '@shared/api/gps';
import {
  Alert,
  App,
  Button,
  Card,
  Drawer,
  Input,
  InputNumber,
  List,
  Popconfirm,
  Select,
  Space,
  Table,
  Tag,
  Typography,
} from 'antd';
import dayjs from 'dayjs';
import { useCallback, useEffect, useState } from 'react';
import type { useTranslation } from 'react-i18next';
import type { z } from 'zod';
import { ApiError, call } from '../../api';
import { failureText } from '../../use-api';
import { boundsOf, type Geometry, outlineOf } from './geometry';
import type { MapData } from './map-memory';
import type { MapView } from './map-view';
import type { GeofenceStore, OfflineRoute, OfflineRouteProgress } from './offline-data';
import {
  complete,
  draftOf,
  moveStop,
  nextStop,
  type Route,
  type RouteDraft,
  routeRequest,
  type ShownStatus,
  STATUS_COLOR,
} from './route-model';

/** Each object's progress: the server's, or the one computed on this device (with `unknown` stops). */
type Progress = (Omit<z.infer<typeof RouteProgress>['items'][number], 'stops'> & {
  stops: { geofenceId: string; expectedAt: string; status: ShownStatus; enteredAt: string | null }[];
})[];
type T = ReturnType<typeof useTranslation>['t'];

/**
 * The routes card: routes as ordered geofences with expected times, listed; one opens with each of
 * its objects' progress (visited, late, skipped, pending) and is edited or deleted there.
 */
export function RoutePanel({
  view,
  geofences,
  objects,
  online,
  offline,
  t,
}: {
  view?: React.RefObject<MapView | undefined>;
  geofences: MapData['geofences'];
  objects: { id: string; name: string }[];
  online: boolean;
  /**
   * With no connection: the routes the replica holds, saves kept there (pushed on reconnect), and a
   * route's progress computed from the replica's track.
   */
  offline?: {
    routes: () => Promise<OfflineRoute[]>;
    store: GeofenceStore;
    progress: (route: Route) => Promise<OfflineRouteProgress>;
  };
  t: T;
}) {
  const { message } = App.useApp();
  const [routes, setRoutes] = useState<Route[]>([]);
  const [open, setOpen] = useState<Route>();
  const [draft, setDraft] = useState<RouteDraft>();
  const [error, setError] = useState<string>();

  useEffect(() => {
    // A read that answers after the connection changed is not shown (the replica's, read while the
    // page was still connecting, would hide the server's).
    let current = true;
    const read = online
      ? call(gpsRoutesApi.list).then((answer) => answer.items)
      : offline?.routes().then((held) => held as Route[]);
    read?.then(
      (items) => current && setRoutes(items),
      () => {
        // Offline: the card says routes need the connection.
      },
    );
    return () => {
      current = false;
    };
  }, [online, offline]);
  const store = online ? undefined : offline?.store;

  const close = () => {
    setOpen(undefined);
    setDraft(undefined);
    setError(undefined);
  };
  const saved = (route: Route) => {
    setRoutes((current) =>
      [...current.filter((r) => r.id !== route.id), route].sort((a, b) => a.name.localeCompare(b.name)),
    );
    setDraft(undefined);
    setOpen(route);
    message.success(t('gps.routeSaved', { name: route.name }));
  };
  const deleted = (id: string) => {
    setRoutes((current) => current.filter((r) => r.id !== id));
    close();
  };

  return (
    <Card size="small" title={`${t('gps.routes')}: ${routes.length}`} style={{ margin: 8 }} data-testid="gps-routes">
      {!online && !offline ? (
        <Typography.Text type="secondary">{t('gps.unavailable')}</Typography.Text>
      ) : (
        <Space direction="vertical" style={{ width: '100%' }}>
          <List
            size="small"
            style={{ maxHeight: 120, overflow: 'auto' }}
            dataSource={routes}
            locale={{ emptyText: t('gps.noRoutes') }}
            renderItem={(route) => (
              <List.Item
                data-testid="gps-route-row"
                onClick={() => {
                  setDraft(undefined);
                  setOpen(route);
                }}
                style={{ cursor: 'pointer', paddingInline: 4 }}
              >
                <span>{route.name}</span>
                <Typography.Text type="secondary" style={{ marginLeft: 8 }}>
                  {t('gps.stopCount', { count: route.stops.length })}
                </Typography.Text>
              </List.Item>
            )}
          />
          <Button
            size="small"
            onClick={() => {
              setOpen(undefined);
              setError(undefined);
              setDraft({ name: '', objectIds: [], stops: [nextStop([])] });
            }}
          >
            {t('gps.newRoute')}
          </Button>
        </Space>
      )}
      <Drawer
        open={open !== undefined || draft !== undefined}
        onClose={close}
        mask={false}
        width={560}
        title={draft ? (draft.id ? t('gps.editRoute') : t('gps.newRoute')) : open?.name}
        data-testid="gps-route-drawer"
      >
        {error && <Alert type="error" message={error} style={{ marginBottom: 8 }} />}
        {draft ? (
          <RouteForm
            draft={draft}
            onChange={setDraft}
            geofences={geofences}
            objects={objects}
            onCancel={() => (open ? setDraft(undefined) : close())}
            onSave={async () => {
              try {
                const body = routeRequest(draft);
                saved(
                  store
                    ? ((await store.saveRoute(body, draft.id)) as Route)
                    : draft.id
                      ? await call(gpsRoutesApi.update, { params: { routeId: draft.id }, body })
                      : await call(gpsRoutesApi.create, { body }),
                );
              } catch (caught) {
                setError(failureText(caught, t));
              }
            }}
            t={t}
          />
        ) : (
          open && (
            <RouteProgressView
              route={open}
              geofences={geofences}
              objects={objects}
              offlineProgress={offline?.progress}
              onShow={() => {
                const stops = new Set(open.stops.map((stop) => stop.geofenceId));
                const bounds = boundsOf(
                  geofences
                    .filter((geofence) => stops.has(geofence.id))
                    .flatMap((geofence) => outlineOf(geofence.geometry as Geometry)),
                );
                if (bounds) view?.current?.fit(bounds);
              }}
              onEdit={() => setDraft(draftOf(open))}
              onDelete={async () => {
                try {
                  if (store) await store.removeRoute(open.id);
                  else await call(gpsRoutesApi.remove, { params: { routeId: open.id } });
                  deleted(open.id);
                } catch (caught) {
                  setError(failureText(caught, t));
                }
              }}
              t={t}
            />
          )
        )}
      </Drawer>
    </Card>
  );
}

function RouteForm({
  draft,
  onChange,
  geofences,
  objects,
  onCancel,
  onSave,
  t,
}: {
  draft: RouteDraft;
  onChange: (draft: RouteDraft) => void;
  geofences: MapData['geofences'];
  objects: { id: string; name: string }[];
  onCancel: () => void;
  onSave: () => Promise<void>;
  t: T;
}) {
  const [saving, setSaving] = useState(false);
  const setStop = (index: number, change: Partial<RouteDraft['stops'][number]>) =>
    onChange({ ...draft, stops: draft.stops.map((stop, i) => (i === index ? { ...stop, ...change } : stop)) });
  return (
    <Space direction="vertical" style={{ width: '100%' }} data-testid="gps-route-form">
      <Input
        aria-label={t('gps.routeName')}
        placeholder={t('gps.routeName')}
        value={draft.name}
        onChange={(event) => onChange({ ...draft, name: event.target.value })}
      />
      <Select
        mode="multiple"
        style={{ width: '100%' }}
        aria-label={t('gps.routeObjects')}
        placeholder={t('gps.routeObjects')}
        value={draft.objectIds}
        optionFilterProp="label"
        onChange={(objectIds: string[]) => onChange({ ...draft, objectIds })}
        options={objects.map((object) => ({ value: object.id, label: object.name }))}
      />
      <Typography.Text strong>{t('gps.routeStops')}</Typography.Text>
      {draft.stops.map((stop, index) => (
        // Stops have no id of their own; their place in the order is what they are.
        // biome-ignore lint/suspicious/noArrayIndexKey: see above
        <Space key={index} wrap data-testid="gps-route-stop" align="center">
          <Typography.Text>{index + 1}.</Typography.Text>
          <Select
            style={{ width: 150 }}
            aria-label={t('gps.stopGeofence', { number: index + 1 })}
            placeholder={t('gps.geofence')}
            value={stop.geofenceId}
            showSearch
            optionFilterProp="label"
            onChange={(geofenceId: string) => setStop(index, { geofenceId })}
            options={geofences.map((geofence) => ({ value: geofence.id, label: geofence.name }))}
          />
          <Input
            type="datetime-local"
            style={{ width: 190 }}
            aria-label={t('gps.stopExpected', { number: index + 1 })}
            value={stop.expectedAt}
            onChange={(event) => setStop(index, { expectedAt: event.target.value })}
          />
          <InputNumber
            style={{ width: 90 }}
            min={0}
            max={1440}
            aria-label={t('gps.stopTolerance', { number: index + 1 })}
            title={t('gps.tolerance')}
            suffix={t('gps.minutes')}
            value={stop.toleranceMinutes}
            onChange={(value) => setStop(index, { toleranceMinutes: value ?? 0 })}
          />
          <Button
            size="small"
            aria-label={t('gps.moveUp')}
            disabled={index === 0}
            onClick={() => onChange({ ...draft, stops: moveStop(draft.stops, index, -1) })}
          >
            ↑
          </Button>
          <Button
            size="small"
            aria-label={t('gps.moveDown')}
            disabled={index === draft.stops.length - 1}
            onClick={() => onChange({ ...draft, stops: moveStop(draft.stops, index, 1) })}
          >
            ↓
          </Button>
          <Button
            size="small"
            aria-label={t('gps.removeStop')}
            disabled={draft.stops.length === 1}
            onClick={() => onChange({ ...draft, stops: draft.stops.filter((_, i) => i !== index) })}
          >
            ✕
          </Button>
        </Space>
      ))}
      <Button size="small" onClick={() => onChange({ ...draft, stops: [...draft.stops, nextStop(draft.stops)] })}>
        {t('gps.addStop')}
      </Button>
      <Space>
        <Button onClick={onCancel}>{t('gps.cancel')}</Button>
        <Button
          type="primary"
          loading={saving}
          disabled={!complete(draft)}
          onClick={async () => {
            setSaving(true);
            await onSave();
            setSaving(false);
          }}
        >
          {t('gps.save')}
        </Button>
      </Space>
    </Space>
  );
}

function RouteProgressView({
  route,
  geofences,
  objects,
  offlineProgress,
  onShow,
  onEdit,
  onDelete,
  t,
}: {
  route: Route;
  geofences: MapData['geofences'];
  objects: { id: string; name: string }[];
  /** The progress computed from the replica, shown when the server cannot be reached. */
  offlineProgress?: (route: Route) => Promise<OfflineRouteProgress>;
  onShow: () => void;
  onEdit: () => void;
  onDelete: () => Promise<void>;
  t: T;
}) {
  const [progress, setProgress] = useState<Progress>();
  const [computed, setComputed] = useState<Omit<OfflineRouteProgress, 'items'>>();
  const [error, setError] = useState<string>();
  const load = useCallback(async () => {
    try {
      setProgress((await call(gpsRoutesApi.getGpsRouteProgress, { params: { routeId: route.id } })).items);
      setComputed(undefined);
      setError(undefined);
    } catch (caught) {
      if (offlineProgress && caught instanceof ApiError && caught.problem.status === 0) {
        const { items, ...coverage } = await offlineProgress(route);
        setProgress(items);
        setComputed(coverage);
        setError(undefined);
        return;
      }
      setError(failureText(caught, t));
    }
  }, [route, offlineProgress, t]);
  // Progress moves with the objects: read again while the route is open.
  useEffect(() => {
    void load();
    const timer = setInterval(() => void load(), 30_000);
    return () => clearInterval(timer);
  }, [load]);
  const geofenceName = (id: string) => geofences.find((geofence) => geofence.id === id)?.name ?? '—';
  const objectName = (id: string) => objects.find((object) => object.id === id)?.name ?? id;
  const time = (iso: string) => dayjs(iso).format('DD.MM HH:mm');
  return (
    <Space direction="vertical" style={{ width: '100%' }}>
      <Space>
        <Button size="small" onClick={() => void load()}>
          {t('gps.refresh')}
        </Button>
        <Button size="small" onClick={onShow}>
          {t('gps.showOnMap')}
        </Button>
        <Button size="small" onClick={onEdit}>
          {t('gps.edit')}
        </Button>
        <Popconfirm
          title={t('gps.deleteRouteConfirm', { name: route.name })}
          okText={t('gps.delete')}
          cancelText={t('gps.cancel')}
          onConfirm={onDelete}
        >
          <Button size="small" danger>
            {t('gps.delete')}
          </Button>
        </Popconfirm>
      </Space>
      {error && <Alert type="error" message={error} />}
      <Typography.Text strong>{t('gps.progress')}</Typography.Text>
      {computed && (
        <Alert
          type="info"
          showIcon
          data-testid="gps-route-progress-computed"
          message={
            computed.coveredTo
              ? t('gps.progressComputed', {
                  hours: Math.max(1, Math.round((Date.now() - computed.coveredFrom.getTime()) / 3_600_000)),
                  from: time(computed.coveredFrom.toISOString()),
                  to: time(computed.coveredTo.toISOString()),
                })
              : t('gps.progressComputedNoTrack')
          }
        />
      )}
      <Table
        size="small"
        data-testid="gps-route-progress"
        rowKey="objectId"
        pagination={false}
        scroll={{ x: true }}
        locale={{ emptyText: t('gps.noRouteObjects') }}
        dataSource={progress ?? []}
        loading={progress === undefined && !error}
        columns={[
          { title: t('gps.object'), dataIndex: 'objectId', render: (id: string) => objectName(id) },
          ...route.stops.map((stop, index) => ({
            key: `${index}`,
            title: (
              <span>
                {index + 1}. {geofenceName(stop.geofenceId)}
                <br />
                <Typography.Text type="secondary" style={{ fontSize: 12 }}>
                  {time(stop.expectedAt)} ± {stop.toleranceMinutes}
                </Typography.Text>
              </span>
            ),
            render: (_: unknown, row: Progress[number]) => {
              const reached = row.stops[index];
              if (!reached) return null;
              return (
                <Space direction="vertical" size={0}>
                  <Tag
                    color={STATUS_COLOR[reached.status]}
                    data-status={reached.status}
                    style={reached.status === 'unknown' ? { borderStyle: 'dashed' } : undefined}
                  >
                    {t(`gps.status.${reached.status satisfies ShownStatus}`)}
                  </Tag>
                  {reached.enteredAt && (
                    <Typography.Text type="secondary" style={{ fontSize: 12 }}>
                      {time(reached.enteredAt)}
                    </Typography.Text>
                  )}
                </Space>
              );
            },
          })),
        ]}
      />
    </Space>
  );
}
