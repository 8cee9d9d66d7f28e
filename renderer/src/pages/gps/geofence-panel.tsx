import { gpsGeofencesApi } from '@shared/api/gps';
import { Alert, Button, Card, Input, InputNumber, Space, Typography } from 'antd';
import type { FeatureCollection } from 'geojson';
import { useCallback, useEffect, useRef, useState } from 'react';
import type { useTranslation } from 'react-i18next';
import { call } from '../../api';
import { useShortcut } from '../../shortcuts';
import { failureText } from '../../use-api';
import { drawable, type Geometry, geofenceFeature, handlesOf, type LatLon, moveHandle } from './geometry';
import type { MapData } from './map-memory';
import type { MapView } from './map-view';

type Geofence = MapData['geofences'][number];

const EMPTY: FeatureCollection = { type: 'FeatureCollection', features: [] };

interface Draft {
  name: string;
  geometry: Geometry;
}

/** The geofences card: draws a new circle, polygon or corridor with handles and undo, and saves it. */
export function GeofencePanel({
  view,
  geofences,
  onSaved,
  t,
}: {
  view: React.RefObject<MapView | undefined>;
  geofences: Geofence[];
  onSaved: (geofence: Geofence) => void;
  t: ReturnType<typeof useTranslation>['t'];
}) {
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

  useEffect(() => {
    const map = view.current?.map;
    if (!map || !drawing) return;
    const onClick = (event: { lngLat: { lat: number; lng: number }; defaultPrevented?: boolean }) => {
      const current = draftRef.current;
      if (!current) return;
      const at: LatLon = { lat: event.lngLat.lat, lon: event.lngLat.lng };
      const geometry = current.geometry;
      change({
        ...current,
        geometry:
          geometry.type === 'circle'
            ? { ...geometry, center: at }
            : ({ ...geometry, points: [...geometry.points, at] } as Geometry),
      });
    };
    let dragging: number | undefined;
    const onDown = (event: { features?: { properties: { index: number } }[]; preventDefault: () => void }) => {
      dragging = event.features?.[0]?.properties.index;
      if (dragging === undefined) return;
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
      const current = draftRef.current;
      if (current) setHistory((stack) => [...stack, current]);
    };
    map.on('click', onClick);
    map.on('mousedown', 'handles', onDown as never);
    map.on('mousemove', onMove);
    map.on('mouseup', onUp);
    map.getCanvas().style.cursor = 'crosshair';
    return () => {
      map.off('click', onClick);
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
      const saved = await call(gpsGeofencesApi.create, {
        body: { name: draft.name, geometry: draft.geometry },
      });
      onSaved(saved);
      setDraft(undefined);
    } catch (caught) {
      setError(failureText(caught, t));
    } finally {
      setSaving(false);
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
      ) : (
        <Space direction="vertical" style={{ width: '100%' }}>
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
          <Space>
            <Button size="small" onClick={undo} disabled={history.length === 0}>
              {t('gps.undo')}
            </Button>
            <Button size="small" onClick={() => setDraft(undefined)}>
              {t('gps.cancel')}
            </Button>
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
