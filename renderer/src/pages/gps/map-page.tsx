import { gpsGeofencesApi, gpsGroupsApi, gpsObjectsApi, gpsSettingsApi, type TripList } from '@shared/api/gps';
import { GPS_POSITIONS_EVENT, type GpsLivePositions } from '@shared/gps-live';
import {
  Alert,
  App,
  Card,
  DatePicker,
  Input,
  List,
  Radio,
  Select,
  Slider,
  Space,
  Switch,
  Table,
  Typography,
} from 'antd';
import dayjs, { type Dayjs } from 'dayjs';
import type { FeatureCollection } from 'geojson';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import type { z } from 'zod';
import { call } from '../../api';
import { useReplica } from '../../data/replica-context';
import { useShortcut } from '../../shortcuts';
import { failureText } from '../../use-api';
import { GeofencePanel } from './geofence-panel';
import { boundsOf } from './geometry';
import { LayerSwitch } from './layer-switch';
import { type MapData, recallMap, recallMapData, rememberMap, rememberMapData } from './map-memory';
import { MapView } from './map-view';
import { ObjectCard } from './object-card';
import { applyPosition, type MapObject, matchesSearch, objectState, objectsGeoJson, STATE_COLOR } from './object-state';
import {
  type GeofenceStore,
  type OfflineRoute,
  type OfflineRouteProgress,
  type OfflineTrackPoint,
  offlineGeofences,
  offlineGroups,
  offlineObjects,
  offlineRouteProgress,
  offlineRoutes,
  offlineTrack,
  replicaStore,
} from './offline-data';
import { RoutePanel } from './route-panel';
import { rejectedGeoJson, trackGeoJson } from './speed';
import { TileDownload } from './tile-download';

type Trip = z.infer<typeof TripList>['items'][number];
type Range = [Dayjs, Dayjs];
type Geofence = MapData['geofences'][number];

const EMPTY: FeatureCollection = { type: 'FeatureCollection', features: [] };

function presetRange(preset: 'today' | 'yesterday' | 'week'): Range {
  const today = dayjs().startOf('day');
  if (preset === 'yesterday') return [today.subtract(1, 'day'), today];
  if (preset === 'week') return [today.subtract(6, 'day'), dayjs().endOf('day')];
  return [today, dayjs().endOf('day')];
}

/** The dispatcher's map: objects live, the chosen object's card and track, geofences and their editor. */
export function MapPage() {
  const { t } = useTranslation();
  const { me, replica, status } = useReplica();
  const replicaObjects = useCallback(
    async () => (replica ? ((await offlineObjects(replica.db)) as unknown as MapObject[]) : []),
    [replica],
  );
  // What else the replica holds for the map offline: groups, geofences and the recent tracks.
  const replicaData = useMemo(
    () =>
      replica && {
        groups: () => offlineGroups(replica.db),
        geofences: async () => (await offlineGeofences(replica.db)) as Geofence[],
        track: (objectId: string, from: Date, to: Date) => offlineTrack(replica.db, objectId, from, to),
        routes: () => offlineRoutes(replica.db),
        progress: (route: OfflineRoute) => offlineRouteProgress(replica.db, route),
        store: replicaStore(replica),
      },
    [replica],
  );
  if (!me) return null;
  if (!me.modules.gps) return <Alert style={{ margin: 24 }} type="info" message={t('gps.noAccess')} />;
  return (
    <MapScreen
      userId={me.user.id}
      socket={replica?.socket}
      replicaObjects={replicaObjects}
      replicaData={replicaData || undefined}
      online={status?.online ?? false}
      syncedAt={status?.syncedAt}
      isAdmin={me.user.isAdmin}
      t={t}
    />
  );
}

function MapScreen({
  userId,
  socket,
  replicaObjects,
  replicaData,
  online,
  syncedAt,
  isAdmin,
  t,
}: {
  userId: string;
  socket:
    | {
        on: (event: string, listener: (message: GpsLivePositions) => void) => void;
        off: (event: string, listener: (message: GpsLivePositions) => void) => void;
      }
    | undefined;
  /** The objects the replica holds (read when the server cannot be reached). */
  replicaObjects?: () => Promise<MapObject[]>;
  replicaData?: {
    groups: () => Promise<{ id: string; name: string }[]>;
    geofences: () => Promise<Geofence[]>;
    track: (objectId: string, from: Date, to: Date) => Promise<OfflineTrackPoint[]>;
    /** Geofence saves while offline: kept on the device, pushed on reconnect (merged there field by field). */
    store: GeofenceStore;
    routes: () => Promise<OfflineRoute[]>;
    progress: (route: OfflineRoute) => Promise<OfflineRouteProgress>;
  };
  online: boolean;
  /** When the replica was last in sync with the server. */
  syncedAt?: number;
  /** Administrators may pre-download an area of the organization's tiles. */
  isAdmin: boolean;
  t: ReturnType<typeof useTranslation>['t'];
}) {
  const { message } = App.useApp();
  const container = useRef<HTMLDivElement>(null);
  const view = useRef<MapView>(undefined);
  const memory = useMemo(() => recallMap(userId), [userId]);
  const [layers, setLayers] = useState(memory.layers);
  const layersRef = useRef(layers);
  layersRef.current = layers;
  const [objects, setObjects] = useState<Map<string, MapObject>>(() => new Map());
  const [groups, setGroups] = useState<{ id: string; name: string }[]>([]);
  const [geofences, setGeofences] = useState<Geofence[]>([]);
  const [dataAt, setDataAt] = useState<string>();
  const [loadFailed, setLoadFailed] = useState(false);
  const [search, setSearch] = useState('');
  const [groupId, setGroupId] = useState<string>();
  const [selectedId, setSelectedId] = useState<string>();
  const [cursor, setCursor] = useState(0);
  const [follow, setFollow] = useState(false);
  const searchInput = useRef<{ focus: () => void } | null>(null);
  const syncedAtRef = useRef(syncedAt);
  syncedAtRef.current = syncedAt;
  const known = useRef(new Set<string>());
  known.current = new Set(objects.keys());

  // The map is made once; its sources are updated in place from here on.
  useEffect(() => {
    if (!container.current) return;
    const map = new MapView(container.current, memory, null);
    view.current = map;
    const save = () => rememberMap(userId, { ...memory, layers: layersRef.current, ...map.camera() });
    map.map.on('moveend', save);
    map.onObjectClick((id) => setSelectedId(id));
    (window as unknown as { orbitaMap?: MapView }).orbitaMap = map;
    return () => {
      save();
      map.remove();
      view.current = undefined;
    };
  }, [memory, userId]);

  const load = useCallback(async () => {
    try {
      const [objectList, groupList, geofenceList, settings] = await Promise.all([
        call(gpsObjectsApi.listGpsObjects),
        call(gpsGroupsApi.list),
        call(gpsGeofencesApi.list),
        call(gpsSettingsApi.getGpsSettings),
      ]);
      view.current?.setTiles(settings.tileSource);
      const at = new Date().toISOString();
      setObjects(new Map(objectList.items.map((object) => [object.id, object])));
      setGroups(groupList.items);
      setGeofences(geofenceList.items);
      setDataAt(at);
      setLoadFailed(false);
      rememberMapData(userId, {
        at,
        objects: objectList.items,
        geofences: geofenceList.items,
        tileSource: settings.tileSource,
      });
    } catch {
      // Offline: the replica's objects (the desktop app and the browser build keep them), else the
      // last data this device received; said with its time.
      const kept = recallMapData(userId);
      const replicated = (await replicaObjects?.()) ?? [];
      if (replicated.length > 0) {
        setObjects(new Map(replicated.map((object) => [object.id, object])));
        setGroups((await replicaData?.groups()) ?? []);
        setGeofences((await replicaData?.geofences()) ?? []);
        // When the replica was last in sync; else the newest thing it holds.
        const newest = replicated
          .flatMap((object) => [object.last_seen, (object as { updatedAt?: string }).updatedAt])
          .filter((time): time is string => typeof time === 'string')
          .sort()
          .at(-1);
        const at = syncedAtRef.current ? new Date(syncedAtRef.current).toISOString() : newest;
        if (at) setDataAt(at);
      }
      if (kept) {
        if (replicated.length === 0) setObjects(new Map(kept.objects.map((object) => [object.id, object])));
        if (replicated.length === 0) setGeofences(kept.geofences);
        setDataAt(kept.at);
        view.current?.setTiles(kept.tileSource ?? null);
      }
      setLoadFailed(true);
    }
  }, [userId, replicaObjects, replicaData]);
  useEffect(() => {
    void load();
  }, [load]);
  // Back online: what changed meanwhile comes again.
  useEffect(() => {
    if (online && loadFailed) void load();
  }, [online, loadFailed, load]);

  // Live positions, applied as they come (batched per second by the server).
  useEffect(() => {
    if (!socket) return;
    const onPositions = ({ positions }: GpsLivePositions) => {
      // An object this list does not hold yet (a tracker just created it): the list comes again.
      if (positions.some((position) => !known.current.has(position.objectId))) void load();
      setObjects((current) => {
        const next = new Map(current);
        for (const position of positions) {
          const object = next.get(position.objectId);
          if (object) next.set(object.id, applyPosition(object, position));
        }
        return next;
      });
      setDataAt(new Date().toISOString());
    };
    socket.on(GPS_POSITIONS_EVENT, onPositions);
    return () => socket.off(GPS_POSITIONS_EVENT, onPositions);
  }, [socket, load]);

  useEffect(() => view.current?.set('objects', objectsGeoJson(objects.values(), selectedId)), [objects, selectedId]);
  // The layer switch, remembered with the map per user.
  useEffect(() => {
    const map = view.current;
    if (!map) return;
    map.setLayers(layers);
    rememberMap(userId, { ...memory, ...map.camera(), layers });
  }, [layers, memory, userId]);

  const selected = selectedId ? objects.get(selectedId) : undefined;
  useEffect(() => {
    if (follow && selected?.lastPosition) view.current?.follow(selected.lastPosition);
  }, [follow, selected]);

  const shown = useMemo(
    () =>
      [...objects.values()]
        .filter((object) => (!groupId || object.groupId === groupId) && matchesSearch(object, search))
        .sort((a, b) => a.name.localeCompare(b.name)),
    [objects, groupId, search],
  );
  const show = (object: MapObject | undefined) => {
    if (!object) return;
    setSelectedId(object.id);
    if (object.lastPosition) view.current?.follow(object.lastPosition);
  };
  useShortcut('ArrowDown', () => setCursor((index) => Math.min(index + 1, shown.length - 1)));
  useShortcut('ArrowUp', () => setCursor((index) => Math.max(index - 1, 0)));
  useShortcut('Enter', () => show(shown[cursor]));
  useShortcut('f', () => setFollow((on) => !on));
  useShortcut('/', () => searchInput.current?.focus());

  const offline = !online || loadFailed;
  return (
    <div style={{ display: 'flex', height: 'calc(100vh - 64px)' }} data-testid="gps-map-page">
      <div style={{ width: 320, display: 'flex', flexDirection: 'column', borderRight: '1px solid #eee' }}>
        <Space direction="vertical" style={{ padding: 8 }}>
          {offline && (
            <Alert
              data-testid="gps-offline"
              type="warning"
              showIcon
              message={
                dataAt ? t('gps.offline', { time: dayjs(dataAt).format('DD.MM.YYYY HH:mm') }) : t('gps.offlineNoData')
              }
            />
          )}
          <Input
            ref={(input) => {
              searchInput.current = input;
            }}
            allowClear
            placeholder={t('gps.search')}
            aria-label={t('gps.search')}
            value={search}
            onChange={(event) => {
              setSearch(event.target.value);
              setCursor(0);
            }}
          />
          <Select
            allowClear
            style={{ width: '100%' }}
            placeholder={t('gps.allGroups')}
            value={groupId}
            onChange={(value?: string) => setGroupId(value)}
            options={groups.map((group) => ({ value: group.id, label: group.name }))}
          />
          <Typography.Text type="secondary" style={{ fontSize: 12 }}>
            {t('gps.shortcuts')}
          </Typography.Text>
          <Link to="/map/objects" data-testid="gps-objects-link">
            {t('gpsObjects.open')}
          </Link>
        </Space>
        <List
          style={{ overflow: 'auto', flex: 1 }}
          size="small"
          locale={{ emptyText: t('gps.noObjects') }}
          dataSource={shown}
          renderItem={(object, index) => {
            const state = objectState(object);
            return (
              <List.Item
                data-testid="gps-object-row"
                onClick={() => show(object)}
                style={{
                  cursor: 'pointer',
                  paddingInline: 12,
                  background: object.id === selectedId ? '#fff8e1' : index === cursor ? '#f5f5f5' : undefined,
                }}
              >
                <Space>
                  <span
                    style={{
                      width: 10,
                      height: 10,
                      borderRadius: 5,
                      background: STATE_COLOR[state],
                      display: 'inline-block',
                    }}
                  />
                  {object.name}
                </Space>
                <Typography.Text type="secondary">{t(`gps.${state}`)}</Typography.Text>
              </List.Item>
            );
          }}
        />
        <GeofencePanel
          view={view}
          geofences={geofences}
          onSaved={(geofence) => {
            setGeofences((current) => [...current.filter((g) => g.id !== geofence.id), geofence]);
            message.success(t('gps.saved', { name: geofence.name }));
          }}
          onDeleted={(id) => setGeofences((current) => current.filter((g) => g.id !== id))}
          store={offline ? replicaData?.store : undefined}
          t={t}
        />
        <RoutePanel
          view={view}
          geofences={geofences}
          objects={[...objects.values()].sort((a, b) => a.name.localeCompare(b.name))}
          online={!offline}
          offline={replicaData}
          t={t}
        />
      </div>
      <div style={{ flex: 1, position: 'relative' }}>
        <div ref={container} style={{ position: 'absolute', inset: 0 }} data-testid="gps-map" />
        <LayerSwitch switches={layers} onChange={setLayers} t={t} />
        {isAdmin && <TileDownload view={view} online={!offline} t={t} />}
      </div>
      {selected && (
        <div style={{ width: 380, overflow: 'auto', borderLeft: '1px solid #eee', padding: 8 }}>
          <ObjectCard object={selected} follow={follow} onFollow={setFollow} online={!offline} t={t} />
          <TrackPanel
            key={selected.id}
            objectId={selected.id}
            view={view}
            online={!offline}
            offlineTrack={replicaData?.track}
            t={t}
          />
        </div>
      )}
    </div>
  );
}

function TrackPanel({
  objectId,
  view,
  online,
  offlineTrack,
  t,
}: {
  objectId: string;
  view: React.RefObject<MapView | undefined>;
  online: boolean;
  /** The track's recent hours as the replica keeps them (drawn when the server cannot be reached). */
  offlineTrack?: (objectId: string, from: Date, to: Date) => Promise<OfflineTrackPoint[]>;
  t: ReturnType<typeof useTranslation>['t'];
}) {
  const [range, setRange] = useState<Range>(() => presetRange('today'));
  const [points, setPoints] = useState<z.infer<typeof import('@shared/api/gps').TrackPoint>[]>([]);
  const [trips, setTrips] = useState<Trip[]>([]);
  const [stopCount, setStopCount] = useState(0);
  const [snap, setSnap] = useState(false);
  const [snapUnavailable, setSnapUnavailable] = useState(false);
  const [rejected, setRejected] = useState(false);
  const [playback, setPlayback] = useState<number>();
  const [error, setError] = useState<string>();

  // Offline: the hours of the range the replica keeps, drawn without trips, stops or snapping.
  useEffect(() => {
    if (online || !offlineTrack) return;
    let current = true;
    void offlineTrack(objectId, range[0].toDate(), range[1].toDate()).then((held) => {
      if (!current) return;
      setPoints(held);
      setTrips([]);
      setStopCount(0);
      view.current?.set('track', trackGeoJson(held));
      const bounds = boundsOf(held);
      if (bounds) view.current?.fit(bounds);
    });
    return () => {
      current = false;
    };
  }, [objectId, range, online, offlineTrack, view]);

  useEffect(() => {
    if (!online) return;
    let current = true;
    const query = { from: range[0].toISOString(), to: range[1].toISOString() };
    const params = { objectId };
    void (async () => {
      try {
        const [track, tripList, stopList] = await Promise.all([
          call(gpsObjectsApi.getGpsTrack, {
            params,
            query: { ...query, ...(rejected ? { include: 'rejected' as const } : {}) },
          }),
          call(gpsObjectsApi.listGpsTrips, { params, query }),
          call(gpsObjectsApi.listGpsStops, { params, query }),
        ]);
        if (!current) return;
        setPoints(track.points);
        setTrips(tripList.items);
        setStopCount(stopList.items.length);
        setError(undefined);
        const map = view.current;
        if (snap) {
          const matched = await call(gpsObjectsApi.getGpsMatchedTrack, { params, query });
          if (!current) return;
          setSnapUnavailable(!matched.matched);
          map?.set('track', {
            type: 'FeatureCollection',
            features: matched.segments.map((segment) => ({
              type: 'Feature',
              geometry: { type: 'LineString', coordinates: segment.coordinates.map((p) => [p.lon, p.lat]) },
              properties: { color: segment.matched ? '#6a1b9a' : '#757575' },
            })),
          });
        } else {
          setSnapUnavailable(false);
          map?.set('track', trackGeoJson(track.points));
        }
        map?.set('rejected', rejected ? rejectedGeoJson(track.points) : EMPTY);
        map?.set('stops', {
          type: 'FeatureCollection',
          features: stopList.items.map((stop) => ({
            type: 'Feature',
            geometry: { type: 'Point', coordinates: [stop.place.lon, stop.place.lat] },
            properties: { start: stop.start },
          })),
        });
        const bounds = boundsOf(track.points);
        if (bounds) map?.fit(bounds);
      } catch (caught) {
        if (current) setError(failureText(caught, t));
      }
    })();
    return () => {
      current = false;
    };
  }, [objectId, range, snap, rejected, online, view, t]);
  // Leaving the object clears its track from the map.
  useEffect(
    () => () => {
      for (const source of ['track', 'rejected', 'stops', 'playback'] as const) view.current?.set(source, EMPTY);
    },
    [view],
  );
  const accepted = useMemo(() => points.filter((point) => !point.reason), [points]);
  useEffect(() => {
    const point = playback === undefined ? undefined : accepted[playback];
    view.current?.set(
      'playback',
      point
        ? {
            type: 'FeatureCollection',
            features: [
              { type: 'Feature', geometry: { type: 'Point', coordinates: [point.lon, point.lat] }, properties: {} },
            ],
          }
        : EMPTY,
    );
  }, [playback, accepted, view]);

  if (!online && !offlineTrack) return <Alert style={{ marginTop: 8 }} type="info" message={t('gps.unavailable')} />;
  const zoomTo = (trip: Trip) => {
    const inTrip = accepted.filter((p) => p.fixTime >= trip.start && p.fixTime <= trip.end);
    const bounds = boundsOf(inTrip.length > 0 ? inTrip : [trip.startPlace, trip.endPlace]);
    if (bounds) view.current?.fit(bounds);
  };
  return (
    <Card size="small" title={t('gps.track')} style={{ marginTop: 8 }} data-testid="gps-track">
      <Space direction="vertical" style={{ width: '100%' }}>
        {!online && <Alert type="info" showIcon message={t('gps.offlineTrack')} data-testid="gps-offline-track" />}
        <Radio.Group
          size="small"
          onChange={(event) => setRange(presetRange(event.target.value))}
          options={[
            { value: 'today', label: t('gps.today') },
            { value: 'yesterday', label: t('gps.yesterday') },
            { value: 'week', label: t('gps.week') },
          ]}
          optionType="button"
        />
        <DatePicker.RangePicker
          size="small"
          showTime
          value={range}
          onChange={(value) => value?.[0] && value[1] && setRange([value[0], value[1]])}
        />
        <Space>
          <Switch size="small" checked={snap} onChange={setSnap} aria-label={t('gps.snap')} />
          {t('gps.snap')}
        </Space>
        {snapUnavailable && (
          <Alert type="warning" showIcon message={t('gps.snapUnavailable')} data-testid="gps-snap-unavailable" />
        )}
        <Space>
          <Switch size="small" checked={rejected} onChange={setRejected} aria-label={t('gps.rejected')} />
          {t('gps.rejected')}
        </Space>
        {rejected &&
          points
            .filter((point) => point.reason)
            .slice(0, 20)
            .map((point) => (
              <Typography.Text key={point.fixTime} type="danger" style={{ fontSize: 12 }}>
                {dayjs(point.fixTime).format('HH:mm:ss')} — {t('gps.rejectedReason', { reason: point.reason })}
              </Typography.Text>
            ))}
        {error && <Alert type="error" message={error} />}
        <Typography.Text>{t('gps.stops', { count: stopCount })}</Typography.Text>
        <Table<Trip>
          size="small"
          data-testid="gps-trips"
          rowKey="start"
          pagination={false}
          locale={{ emptyText: t('gps.noTrips') }}
          dataSource={trips}
          onRow={(trip) => ({ onClick: () => zoomTo(trip), style: { cursor: 'pointer' } })}
          columns={[
            {
              title: t('gps.tripStart'),
              dataIndex: 'start',
              render: (start: string) => dayjs(start).format('DD.MM HH:mm'),
            },
            {
              title: t('gps.tripDuration'),
              dataIndex: 'durationSeconds',
              render: (seconds: number) =>
                `${Math.floor(seconds / 3600)}:${String(Math.floor((seconds % 3600) / 60)).padStart(2, '0')}`,
            },
            { title: t('gps.tripDistance'), dataIndex: 'distanceMeters', render: (m: number) => (m / 1000).toFixed(1) },
          ]}
        />
        {accepted.length > 1 && (
          <>
            <Typography.Text>{t('gps.playback')}</Typography.Text>
            <Slider
              min={0}
              max={accepted.length - 1}
              value={playback ?? 0}
              onChange={setPlayback}
              tooltip={{
                formatter: (index) => (index === undefined ? '' : dayjs(accepted[index]?.fixTime).format('HH:mm:ss')),
              }}
            />
          </>
        )}
      </Space>
    </Card>
  );
}
