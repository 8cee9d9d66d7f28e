import { gpsGeofencesApi } from '@shared/api/gps';
import { Alert, App, Button, Card, Input, InputNumber, List, Popconfirm, Space, Typography } from 'antd';
import type { FeatureCollection } from 'geojson';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { useTranslation } from 'react-i18next';
import { call } from '../../api';
import { useShortcut } from '../../shortcuts';
import { failureText } from '../../use-api';
import {
  addPoint,
  DEFAULT_GEOFENCE_COLOR,
  drawable,
  edgeAt,
  GEOFENCE_COLORS,
  type Geometry,
  geofenceFeature,
  handlesOf,
  type LatLon,
  moveHandle,
  removeHandle,
} from './geometry';
import type { MapData } from './map-memory';
import type { MapView } from './map-view';
import type { GeofenceStore } from './offline-data';

type Geofence = MapData['geofences'][number];

const EMPTY: FeatureCollection = { type: 'FeatureCollection', features: [] };

/** A geofence being drawn (no id) or a saved one being edited. */
interface Draft {
  id?: string;
  name: string;
  color: string | null;
  geometry: Geometry;
}

/**
 * The geofences card: the saved geofences drawn in their colours and listed; one chosen on the map
 * or in the list is edited with handles (moved vertices, added points, radius or width), renamed,
 * recoloured, saved or deleted; a new circle, polygon or corridor is drawn the same way. Undo with Mod+Z.
 */
export function GeofencePanel({
  view,
  geofences,
  onSaved,
  onDeleted,
  store,
  t,
}: {
  view: React.RefObject<MapView | undefined>;
  geofences: Geofence[];
  onSaved: (geofence: Geofence) => void;
  onDeleted: (id: string) => void;
  /** Where saves go instead of the server (the replica while offline: pushed on reconnect). */
  store?: GeofenceStore;
  t: ReturnType<typeof useTranslation>['t'];
}) {
  const { message } = App.useApp();
  const [draft, setDraft] = useState<Draft>();
  const [history, setHistory] = useState<Draft[]>([]);
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<string>();
  const change = useCallback((next: Draft | undefined) => {
    setDraft((previous) => {
      if (previous && next) setHistory((stack) => [...stack, previous]);
      return next;
    });
  }, []);
  const draftRef = useRef(draft);
  draftRef.current = draft;
  const drawing = draft !== undefined;
  const sorted = useMemo(() => [...geofences].sort((a, b) => a.name.localeCompare(b.name)), [geofences]);

  const edit = useCallback((geofence: Geofence) => {
    setHistory([]);
    setError(undefined);
    setDraft({
      id: geofence.id,
      name: geofence.name,
      color: geofence.color ?? null,
      geometry: geofence.geometry as Geometry,
    });
  }, []);
  const editRef = useRef(edit);
  editRef.current = edit;
  const geofencesRef = useRef(geofences);
  geofencesRef.current = geofences;

  // Saved geofences in their colours; the one being edited is drawn as the draft instead.
  const editingId = draft?.id;
  useEffect(
    () =>
      view.current?.set('geofences', {
        type: 'FeatureCollection',
        features: geofences
          .filter((geofence) => geofence.id !== editingId)
          .map((geofence) =>
            geofenceFeature(geofence.geometry as Geometry, {
              id: geofence.id,
              name: geofence.name,
              color: geofence.color ?? null,
            }),
          ),
      }),
    [geofences, editingId, view],
  );

  // A click on a saved geofence (not on an object inside it) opens it for editing.
  // biome-ignore lint/correctness/useExhaustiveDependencies: again when geofences arrive, as the map exists by then (this panel's effects run before the page's)
  useEffect(() => {
    const map = view.current?.map;
    if (!map || drawing) return;
    const onClick = (event: { point: { x: number; y: number }; features?: { properties: { id?: unknown } }[] }) => {
      const layers = ['objects', 'clusters'].filter((layer) => map.getLayer(layer));
      if (map.queryRenderedFeatures([event.point.x, event.point.y], { layers }).length > 0) return;
      const id = event.features?.[0]?.properties.id;
      const geofence = geofencesRef.current.find((candidate) => candidate.id === id);
      if (geofence) editRef.current(geofence);
    };
    const layers = ['geofences-fill', 'geofences-line'];
    for (const layer of layers) map.on('click', layer, onClick as never);
    return () => {
      for (const layer of layers) map.off('click', layer, onClick as never);
    };
  }, [view, drawing, geofences]);

  useEffect(() => {
    const map = view.current?.map;
    if (!map || !drawing) return;
    const onHandle = (point: { x: number; y: number }) =>
      map.getLayer('handles') !== undefined &&
      map.queryRenderedFeatures([point.x, point.y], { layers: ['handles'] }).length > 0;
    const onClick = (event: { lngLat: { lat: number; lng: number }; point: { x: number; y: number } }) => {
      const current = draftRef.current;
      // A click on a handle picks it up (or removes it, twice): it adds no point.
      if (!current || onHandle(event.point)) return;
      const at: LatLon = { lat: event.lngLat.lat, lon: event.lngLat.lng };
      const geometry = current.geometry;
      // On an edge the point goes between its vertices; elsewhere after the last one.
      const edge =
        geometry.type === 'circle' || geometry.points.length < 2
          ? undefined
          : edgeAt(
              geometry.points.map((point) => map.project([point.lon, point.lat])),
              event.point,
              geometry.type === 'polygon' && geometry.points.length >= 3,
            );
      change({ ...current, geometry: addPoint(geometry, at, edge) });
    };
    let dragging: number | undefined;
    let before: Draft | undefined;
    const onDown = (event: { features?: { properties: { index: number } }[]; preventDefault: () => void }) => {
      dragging = event.features?.[0]?.properties.index;
      if (dragging === undefined) return;
      before = draftRef.current;
      event.preventDefault();
      map.dragPan.disable();
    };
    const onMove = (event: { lngLat: { lat: number; lng: number } }) => {
      const current = draftRef.current;
      if (dragging === undefined || !current) return;
      setDraft({
        ...current,
        geometry: moveHandle(current.geometry, dragging, { lat: event.lngLat.lat, lon: event.lngLat.lng }),
      });
    };
    const onUp = () => {
      if (dragging === undefined) return;
      dragging = undefined;
      map.dragPan.enable();
      // One undo step per drag: back to where the handle was picked up.
      const picked = before;
      if (picked) setHistory((stack) => [...stack, picked]);
    };
    const onDoubleClick = (event: { features?: { properties: { index: number } }[]; preventDefault: () => void }) => {
      const index = event.features?.[0]?.properties.index;
      const current = draftRef.current;
      if (index === undefined || !current) return;
      // Not a zoom: the double-clicked vertex goes.
      event.preventDefault();
      change({ ...current, geometry: removeHandle(current.geometry, index) });
    };
    map.on('click', onClick);
    map.on('dblclick', 'handles', onDoubleClick as never);
    map.on('mousedown', 'handles', onDown as never);
    map.on('mousemove', onMove);
    map.on('mouseup', onUp);
    map.getCanvas().style.cursor = 'crosshair';
    return () => {
      map.off('click', onClick);
      map.off('dblclick', 'handles', onDoubleClick as never);
      map.off('mousedown', 'handles', onDown as never);
      map.off('mousemove', onMove);
      map.off('mouseup', onUp);
      map.getCanvas().style.cursor = '';
    };
  }, [view, drawing, change]);

  useEffect(() => {
    const map = view.current;
    if (!map) return;
    if (!draft) {
      map.set('draft', EMPTY);
      map.set('handles', EMPTY);
      return;
    }
    const complete =
      draft.geometry.type === 'circle' ||
      (draft.geometry.type === 'polygon' ? draft.geometry.points.length >= 3 : draft.geometry.points.length >= 2);
    map.set('draft', complete ? { type: 'FeatureCollection', features: [geofenceFeature(draft.geometry, {})] } : EMPTY);
    map.set('handles', {
      type: 'FeatureCollection',
      features: handlesOf(draft.geometry).map((point, index) => ({
        type: 'Feature',
        geometry: { type: 'Point', coordinates: [point.lon, point.lat] },
        properties: { index },
      })),
    });
  }, [draft, view]);

  const start = (type: Geometry['type']) => {
    const center = view.current?.camera().center ?? [0, 0];
    setHistory([]);
    setError(undefined);
    setDraft({
      name: '',
      color: null,
      geometry:
        type === 'circle'
          ? { type, center: { lon: center[0], lat: center[1] }, radiusMeters: 300 }
          : type === 'polygon'
            ? { type, points: [] }
            : { type, points: [], widthMeters: 50 },
    });
  };
  const undo = () => {
    const previous = history.at(-1);
    if (!previous) return;
    setHistory((stack) => stack.slice(0, -1));
    setDraft(previous);
  };
  useShortcut('Mod+z', undo);
  const save = async () => {
    if (!draft) return;
    setSaving(true);
    try {
      const body = { name: draft.name, geometry: draft.geometry, color: draft.color };
      const saved = store
        ? ((await store.saveGeofence(body, draft.id)) as Geofence)
        : draft.id
          ? await call(gpsGeofencesApi.update, { params: { geofenceId: draft.id }, body })
          : await call(gpsGeofencesApi.create, { body });
      onSaved(saved);
      setDraft(undefined);
    } catch (caught) {
      setError(failureText(caught, t));
    } finally {
      setSaving(false);
    }
  };
  const remove = async () => {
    const id = draft?.id;
    if (!id) return;
    try {
      if (store) await store.removeGeofence(id);
      else await call(gpsGeofencesApi.remove, { params: { geofenceId: id } });
      onDeleted(id);
      message.success(t('gps.deleted', { name: draft.name }));
      setDraft(undefined);
    } catch (caught) {
      setError(failureText(caught, t));
    }
  };

  return (
    <Card
      size="small"
      title={`${t('gps.geofences')}: ${geofences.length}`}
      style={{ margin: 8 }}
      data-testid="gps-geofences"
    >
      {!draft ? (
        <Space direction="vertical" style={{ width: '100%' }}>
          <List
            size="small"
            style={{ maxHeight: 150, overflow: 'auto' }}
            dataSource={sorted}
            locale={{ emptyText: t('gps.noGeofences') }}
            renderItem={(geofence) => (
              <List.Item
                data-testid="gps-geofence-row"
                onClick={() => edit(geofence)}
                style={{ cursor: 'pointer', paddingInline: 4 }}
              >
                <Space>
                  <Swatch color={geofence.color ?? DEFAULT_GEOFENCE_COLOR} />
                  {geofence.name}
                </Space>
              </List.Item>
            )}
          />
          <Space wrap>
            <Button size="small" onClick={() => start('circle')}>
              {t('gps.circle')}
            </Button>
            <Button size="small" onClick={() => start('polygon')}>
              {t('gps.polygon')}
            </Button>
            <Button size="small" onClick={() => start('polyline')}>
              {t('gps.polyline')}
            </Button>
          </Space>
        </Space>
      ) : (
        <Space direction="vertical" style={{ width: '100%' }}>
          <Typography.Text strong>{draft.id ? t('gps.editGeofence') : t('gps.newGeofence')}</Typography.Text>
          <Typography.Text type="secondary" style={{ fontSize: 12 }}>
            {t('gps.drawHint')}
          </Typography.Text>
          <Input
            size="small"
            aria-label={t('gps.name')}
            placeholder={t('gps.name')}
            value={draft.name}
            onChange={(event) => setDraft({ ...draft, name: event.target.value })}
          />
          <Space size={4} wrap aria-label={t('gps.color')}>
            {[null, ...GEOFENCE_COLORS].map((color) => (
              <button
                key={color ?? 'default'}
                type="button"
                aria-pressed={draft.color === color}
                aria-label={color ? t('gps.colorOption', { color }) : t('gps.colorDefault')}
                title={color ?? t('gps.colorDefault')}
                onClick={() => change({ ...draft, color })}
                style={{
                  border: draft.color === color ? '2px solid #222' : '2px solid transparent',
                  borderRadius: 4,
                  padding: 1,
                  background: 'none',
                  cursor: 'pointer',
                }}
              >
                <Swatch color={color ?? DEFAULT_GEOFENCE_COLOR} dashed={color === null} />
              </button>
            ))}
          </Space>
          {draft.geometry.type === 'circle' && (
            <InputNumber
              size="small"
              aria-label={t('gps.radius')}
              addonBefore={t('gps.radius')}
              min={1}
              value={draft.geometry.radiusMeters}
              onChange={(value) =>
                draft.geometry.type === 'circle' &&
                change({ ...draft, geometry: { ...draft.geometry, radiusMeters: value ?? 1 } })
              }
            />
          )}
          {draft.geometry.type === 'polyline' && (
            <InputNumber
              size="small"
              aria-label={t('gps.width')}
              addonBefore={t('gps.width')}
              min={1}
              value={draft.geometry.widthMeters}
              onChange={(value) =>
                draft.geometry.type === 'polyline' &&
                change({ ...draft, geometry: { ...draft.geometry, widthMeters: value ?? 1 } })
              }
            />
          )}
          {error && <Alert type="error" message={error} />}
          <Space wrap>
            <Button size="small" onClick={undo} disabled={history.length === 0}>
              {t('gps.undo')}
            </Button>
            <Button size="small" onClick={() => setDraft(undefined)}>
              {t('gps.cancel')}
            </Button>
            {draft.id && (
              <Popconfirm
                title={t('gps.deleteGeofenceConfirm', { name: draft.name })}
                okText={t('gps.delete')}
                cancelText={t('gps.cancel')}
                onConfirm={remove}
              >
                <Button size="small" danger>
                  {t('gps.delete')}
                </Button>
              </Popconfirm>
            )}
            <Button
              size="small"
              type="primary"
              loading={saving}
              disabled={!draft.name.trim() || !drawable(draft.geometry)}
              onClick={save}
            >
              {t('gps.save')}
            </Button>
          </Space>
        </Space>
      )}
    </Card>
  );
}

/** A small square of a colour. */
export function Swatch({ color, dashed = false }: { color: string; dashed?: boolean }) {
  return (
    <span
      style={{
        width: 14,
        height: 14,
        borderRadius: 3,
        display: 'inline-block',
        verticalAlign: 'middle',
        background: dashed ? 'transparent' : color,
        border: `2px ${dashed ? 'dashed' : 'solid'} ${color}`,
      }}
    />
  );
}
