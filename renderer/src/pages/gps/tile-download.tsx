import { gpsSettingsApi, type TileArea, type TileDownloadPlan } from '@shared/api/gps';
import { DESKTOP_TILE_CACHE_BYTES } from '@shared/gps-tiles';
import { Alert, Button, Form, InputNumber, Modal, Progress, Space, Typography } from 'antd';
import { useRef, useState } from 'react';
import type { useTranslation } from 'react-i18next';
import { ApiError, call } from '../../api';
import { failureText } from '../../use-api';
import { BROWSER_TILE_LIMIT, type DownloadProgress, downloadArea, estimateDownload, tileStore } from './area-download';
import type { MapView } from './map-view';

type T = ReturnType<typeof useTranslation>['t'];

function megabytes(bytes: number): string {
  const mb = bytes / 1024 / 1024;
  return mb.toFixed(mb < 1 ? 2 : mb < 10 ? 1 : 0);
}

/** The area the map shows now, at its zoom and three levels deeper. */
function areaOfView(view: MapView | undefined): TileArea {
  if (!view) return { west: 37.3, south: 55.5, east: 37.9, north: 55.95, minZoom: 10, maxZoom: 13 };
  const bounds = view.map.getBounds();
  const round = (value: number) => Math.round(value * 10_000) / 10_000;
  const zoom = Math.max(0, Math.min(17, Math.floor(view.map.getZoom())));
  return {
    west: round(Math.max(-180, bounds.getWest())),
    south: round(Math.max(-85.05, bounds.getSouth())),
    east: round(Math.min(180, bounds.getEast())),
    north: round(Math.min(85.05, bounds.getNorth())),
    minZoom: zoom,
    maxZoom: Math.min(20, zoom + 3),
  };
}

type Stage =
  | { name: 'choose' }
  | { name: 'estimating' }
  | { name: 'estimated'; plan: TileDownloadPlan; bytes: number; averageBytes: number }
  | { name: 'downloading'; plan: TileDownloadPlan; progress: DownloadProgress }
  | { name: 'finished'; progress: DownloadProgress; cancelled: boolean };

/**
 * An administrator's pre-download of an area of the organization's own tiles for offline use:
 * the area from the map's view (or typed), a zoom range, the size estimated from a sample of its
 * tiles before starting, then a progress bar that can be cancelled. The server allows it only from
 * the configured source (never a public tile server); the tiles go into the desktop app's tile
 * cache, or the browser's service worker.
 */
export function TileDownload({
  view,
  online,
  t,
}: {
  view: React.RefObject<MapView | undefined>;
  online: boolean;
  t: T;
}) {
  const [open, setOpen] = useState(false);
  const [area, setArea] = useState<TileArea>(() => areaOfView(undefined));
  const [stage, setStage] = useState<Stage>({ name: 'choose' });
  const [error, setError] = useState<string>();
  const cancel = useRef<AbortController>(undefined);
  const store = tileStore();

  const show = () => {
    setArea(areaOfView(view.current));
    setStage({ name: 'choose' });
    setError(undefined);
    setOpen(true);
  };
  const close = () => {
    cancel.current?.abort();
    setOpen(false);
  };
  const change = (field: keyof TileArea) => (value: number | null) => {
    if (value === null) return;
    setArea((current) => ({ ...current, [field]: value }));
    setStage({ name: 'choose' });
  };

  const estimate = async () => {
    setError(undefined);
    setStage({ name: 'estimating' });
    const controller = new AbortController();
    cancel.current = controller;
    try {
      const plan = await call(gpsSettingsApi.planGpsTileDownload, { body: area });
      const { bytes, averageBytes } = await estimateDownload(plan, area, controller.signal);
      setStage({ name: 'estimated', plan, bytes, averageBytes });
    } catch (caught) {
      if (controller.signal.aborted) return;
      setError(caught instanceof ApiError ? failureText(caught, t) : t('gpsTiles.sourceUnreadable'));
      setStage({ name: 'choose' });
    }
  };

  const start = async (plan: TileDownloadPlan) => {
    const controller = new AbortController();
    cancel.current = controller;
    const first = { done: 0, total: plan.tileCount, bytes: 0, failed: 0 };
    setStage({ name: 'downloading', plan, progress: first });
    const progress = await downloadArea(plan, area, {
      signal: controller.signal,
      onProgress: (next) => setStage({ name: 'downloading', plan, progress: next }),
    });
    setStage({ name: 'finished', progress, cancelled: controller.signal.aborted });
  };

  const tooBig =
    stage.name === 'estimated' &&
    (store === 'browser' ? stage.plan.tileCount > BROWSER_TILE_LIMIT : stage.bytes > DESKTOP_TILE_CACHE_BYTES);

  return (
    <>
      <Button
        size="small"
        onClick={show}
        disabled={!online}
        data-testid="gps-tile-download-open"
        style={{ position: 'absolute', right: 8, bottom: 28, zIndex: 1 }}
      >
        {t('gpsTiles.open')}
      </Button>
      <Modal
        open={open}
        title={t('gpsTiles.title')}
        onCancel={close}
        footer={null}
        destroyOnHidden
        data-testid="gps-tile-download"
      >
        <Typography.Paragraph type="secondary">
          {t(store === 'desktop' ? 'gpsTiles.explainDesktop' : 'gpsTiles.explainBrowser', {
            limit: store === 'desktop' ? megabytes(DESKTOP_TILE_CACHE_BYTES) : BROWSER_TILE_LIMIT.toLocaleString(),
          })}
        </Typography.Paragraph>
        <Form layout="vertical" disabled={stage.name === 'downloading' || stage.name === 'estimating'}>
          <Space wrap>
            {(['west', 'south', 'east', 'north'] as const).map((edge) => (
              <Form.Item key={edge} label={t(`gpsTiles.${edge}`)} style={{ marginBottom: 8 }}>
                <InputNumber
                  aria-label={t(`gpsTiles.${edge}`)}
                  value={area[edge]}
                  step={0.01}
                  onChange={change(edge)}
                  style={{ width: 110 }}
                />
              </Form.Item>
            ))}
          </Space>
          <Space wrap align="end">
            <Form.Item label={t('gpsTiles.minZoom')} style={{ marginBottom: 8 }}>
              <InputNumber
                aria-label={t('gpsTiles.minZoom')}
                min={0}
                max={20}
                value={area.minZoom}
                onChange={change('minZoom')}
              />
            </Form.Item>
            <Form.Item label={t('gpsTiles.maxZoom')} style={{ marginBottom: 8 }}>
              <InputNumber
                aria-label={t('gpsTiles.maxZoom')}
                min={0}
                max={20}
                value={area.maxZoom}
                onChange={change('maxZoom')}
              />
            </Form.Item>
            <Form.Item style={{ marginBottom: 8 }}>
              <Button onClick={() => setArea(areaOfView(view.current))}>{t('gpsTiles.fromView')}</Button>
            </Form.Item>
          </Space>
        </Form>
        {error && (
          <Alert type="error" showIcon message={error} style={{ marginBottom: 8 }} data-testid="gps-tile-error" />
        )}
        {(stage.name === 'choose' || stage.name === 'estimating') && (
          <Button type="primary" loading={stage.name === 'estimating'} onClick={() => void estimate()}>
            {t('gpsTiles.estimate')}
          </Button>
        )}
        {stage.name === 'estimated' && (
          <Space direction="vertical" style={{ width: '100%' }}>
            <Typography.Text data-testid="gps-tile-estimate">
              {t('gpsTiles.estimated', {
                count: stage.plan.tileCount,
                size: megabytes(stage.bytes),
                average: (stage.averageBytes / 1024).toFixed(1),
              })}
            </Typography.Text>
            {tooBig && <Alert type="warning" showIcon message={t(`gpsTiles.tooBig.${store}`)} />}
            <Button type="primary" onClick={() => void start(stage.plan)}>
              {t('gpsTiles.start')}
            </Button>
          </Space>
        )}
        {stage.name === 'downloading' && (
          <Space direction="vertical" style={{ width: '100%' }}>
            <Progress
              data-testid="gps-tile-progress"
              percent={Math.floor((100 * stage.progress.done) / Math.max(1, stage.progress.total))}
            />
            <Typography.Text type="secondary">
              {t('gpsTiles.progress', {
                done: stage.progress.done,
                total: stage.progress.total,
                size: megabytes(stage.progress.bytes),
              })}
            </Typography.Text>
            <Button danger onClick={() => cancel.current?.abort()}>
              {t('gpsTiles.cancel')}
            </Button>
          </Space>
        )}
        {stage.name === 'finished' && (
          <Alert
            data-testid="gps-tile-finished"
            type={stage.cancelled || stage.progress.failed > 0 ? 'warning' : 'success'}
            showIcon
            message={t(stage.cancelled ? 'gpsTiles.cancelled' : 'gpsTiles.finished', {
              done: stage.progress.done - stage.progress.failed,
              total: stage.progress.total,
              size: megabytes(stage.progress.bytes),
            })}
            description={stage.progress.failed > 0 ? t('gpsTiles.failed', { count: stage.progress.failed }) : undefined}
          />
        )}
      </Modal>
    </>
  );
}
