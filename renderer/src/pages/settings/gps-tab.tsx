import { type GpsSettings, gpsSettingsApi } from '@shared/api/gps';
import {
  Alert,
  Button,
  Card,
  Col,
  Form,
  Input,
  InputNumber,
  type InputRef,
  Modal,
  Popconfirm,
  Radio,
  Row,
  Space,
  Spin,
  Switch,
  Typography,
} from 'antd';
import { useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError, call, serverUrl } from '../../api';
import { useMessage } from '../../messages';
import { FILTER_FIELDS } from '../gps/objects-model';
import { copyText } from './bots-tab';
import {
  changedSettings,
  fieldErrorWords,
  fieldOfPointer,
  type GpsSettingsValues,
  type NumberField,
  numberBounds,
  type RoutingEngineKind,
  type TileSourceKind,
  traccarConfig,
  trackerEndpoints,
  valuesOfSettings,
} from './gps-settings-model';
import { formatDateTime, LoadFailed, problemText, useLoad } from './load';

type Unit = 'hours' | 'days' | 'perMinute' | 'meters' | 'seconds' | 'kmh' | 'points';

const TILE_KINDS: readonly TileSourceKind[] = ['none', 'raster', 'style', 'pmtiles'];
const ROUTING_KINDS: readonly RoutingEngineKind[] = ['none', 'osrm', 'valhalla'];

/** The numeric settings by group, each with its unit. */
const GROUPS: { section: 'loss' | 'trips' | 'filters'; fields: [NumberField, Unit][] }[] = [
  {
    section: 'loss',
    fields: [
      ['gpsLossHours', 'hours'],
      ['retentionDays', 'days'],
      ['offlineTrackHours', 'hours'],
      ['maxMessagesPerMinute', 'perMinute'],
    ],
  },
  {
    section: 'trips',
    fields: [
      ['minTripDistanceMeters', 'meters'],
      ['minTripDurationSeconds', 'seconds'],
      ['minStopDurationSeconds', 'seconds'],
      ['stopGapSeconds', 'seconds'],
    ],
  },
  {
    section: 'filters',
    // The values groups and objects may override too; the loss threshold is shown with the loss.
    fields: FILTER_FIELDS.filter(([field]) => field !== 'gpsLossHours').map(([field, unit]) => [field, unit]),
  },
];

/** A token just made, to be shown once; whether it replaced one. */
interface ShownToken {
  token: string;
  replaced: boolean;
}

/** Where this server is, as trackers reach it: the desktop app's configured server, else this page's origin. */
function serverOrigin(): string {
  return serverUrl() || globalThis.location.origin;
}

function NumberSetting({ field, unit }: { field: NumberField; unit: Unit }) {
  const { t, i18n } = useTranslation();
  const bounds = numberBounds(field);
  const hint = i18n.exists(`gpsSettings.hints.${field}`) ? t(`gpsSettings.hints.${field}`) : undefined;
  return (
    <Col xs={24} md={12}>
      <Form.Item
        name={field}
        label={t(`gpsSettings.fields.${field}`)}
        extra={hint}
        rules={[{ required: true, message: t('gpsSettings.errors.required') }]}
      >
        <InputNumber
          min={bounds.min}
          max={bounds.max}
          precision={bounds.integer ? 0 : undefined}
          suffix={t(`gpsSettings.units.${unit}`)}
          style={{ width: '100%' }}
        />
      </Form.Item>
    </Col>
  );
}

/** The settings form: map tiles, addresses and roads, then the numeric rules by group; saved at once. */
function SettingsForm({ settings, onSaved }: { settings: GpsSettings; onSaved: (settings: GpsSettings) => void }) {
  const { t } = useTranslation();
  const message = useMessage();
  const [form] = Form.useForm<GpsSettingsValues>();
  const tileKind = Form.useWatch(['tileSource', 'kind'], form) ?? settings.tileSource?.kind ?? 'none';
  const routingKind = Form.useWatch(['routingEngine', 'kind'], form) ?? settings.routingEngine?.kind ?? 'none';
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();

  const save = async (values: GpsSettingsValues) => {
    setBusy(true);
    try {
      const saved = await call(gpsSettingsApi.updateGpsSettings, { body: changedSettings(values, settings) });
      onSaved(saved);
      form.setFieldsValue(valuesOfSettings(saved));
      setError(undefined);
      message.success(t('gpsSettings.saved'));
    } catch (caught) {
      // The server's refusals go under the fields they name, in the user's language.
      const errors = caught instanceof ApiError ? (caught.problem.errors ?? []) : [];
      const fields = errors
        .filter((fieldError) => fieldError.location === 'body')
        .map((fieldError) => ({ name: fieldOfPointer(fieldError.pointer), errors: [fieldErrorWords(fieldError, t)] }));
      // The server names fields by path at run time, beyond what the form's type can list.
      form.setFields(fields as Parameters<typeof form.setFields>[0]);
      setError(fields.length > 0 ? t('gpsSettings.fixFields') : problemText(caught, t));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Form
      form={form}
      layout="vertical"
      initialValues={valuesOfSettings(settings)}
      onFinish={(values) => void save(values)}
      onFinishFailed={() => setError(t('gpsSettings.fixFields'))}
      data-testid="gps-settings-form"
    >
      <Card size="small" title={t('gpsSettings.sections.map')} style={{ marginBottom: 12 }}>
        <Form.Item name={['tileSource', 'kind']} label={t('gpsSettings.fields.tileKind')}>
          <Radio.Group
            options={TILE_KINDS.map((kind) => ({ value: kind, label: t(`gpsSettings.tileKinds.${kind}`) }))}
          />
        </Form.Item>
        {tileKind !== 'none' && (
          <Form.Item
            name={['tileSource', 'url']}
            label={t('gpsSettings.fields.tileUrl')}
            extra={t(`gpsSettings.tileUrlHints.${tileKind}`)}
            rules={[{ required: true, whitespace: true, message: t('gpsSettings.errors.required') }]}
          >
            <Input />
          </Form.Item>
        )}
        <Alert type="info" showIcon title={t('gpsSettings.hints.tileNote')} />
      </Card>

      <Card size="small" title={t('gpsSettings.sections.addresses')} style={{ marginBottom: 12 }}>
        <Form.Item
          name="geocoderUrl"
          label={t('gpsSettings.fields.geocoderUrl')}
          extra={t('gpsSettings.hints.geocoderUrl')}
        >
          <Input placeholder="https://nominatim.example.org/reverse" />
        </Form.Item>
        <Form.Item name={['routingEngine', 'kind']} label={t('gpsSettings.fields.routingKind')}>
          <Radio.Group
            options={ROUTING_KINDS.map((kind) => ({ value: kind, label: t(`gpsSettings.routingKinds.${kind}`) }))}
          />
        </Form.Item>
        {routingKind !== 'none' && (
          <Row gutter={12}>
            <Col xs={24} md={12}>
              <Form.Item
                name={['routingEngine', 'url']}
                label={t('gpsSettings.fields.routingUrl')}
                extra={t('gpsSettings.hints.routingUrl')}
                rules={[{ required: true, whitespace: true, message: t('gpsSettings.errors.required') }]}
              >
                <Input />
              </Form.Item>
            </Col>
            <Col xs={12} md={6}>
              <Form.Item
                name={['routingEngine', 'profile']}
                label={t('gpsSettings.fields.routingProfile')}
                extra={t('gpsSettings.hints.routingProfile')}
              >
                <Input />
              </Form.Item>
            </Col>
            <Col xs={12} md={6}>
              <Form.Item name={['routingEngine', 'maxPoints']} label={t('gpsSettings.fields.routingMaxPoints')}>
                <InputNumber min={2} max={10_000} precision={0} style={{ width: '100%' }} />
              </Form.Item>
            </Col>
          </Row>
        )}
      </Card>

      {GROUPS.map((group) => (
        <Card
          key={group.section}
          size="small"
          title={t(`gpsSettings.sections.${group.section}`)}
          extra={group.section === 'filters' ? t('gpsSettings.hints.filters') : undefined}
          style={{ marginBottom: 12 }}
        >
          <Row gutter={12}>
            {group.fields.map(([field, unit]) => (
              <NumberSetting key={field} field={field} unit={unit} />
            ))}
            {group.section === 'loss' && (
              <Col xs={24} md={12}>
                <Form.Item
                  name="autoCreateObjects"
                  label={t('gpsSettings.fields.autoCreateObjects')}
                  extra={t('gpsSettings.hints.autoCreateObjects')}
                  valuePropName="checked"
                >
                  <Switch />
                </Form.Item>
              </Col>
            )}
          </Row>
        </Card>
      ))}

      {error && (
        <Alert
          type="error"
          role="alert"
          title={t('gpsSettings.saveFailed')}
          description={error}
          style={{ marginBottom: 12 }}
        />
      )}
      <Button type="primary" htmlType="submit" loading={busy} style={{ marginBottom: 16 }}>
        {t('gpsSettings.save')}
      </Button>
    </Form>
  );
}

/** The new token, once: a warning that it is not shown again (and that the old one stopped), the token and a copy button. */
function TokenDialog({ shown, onClose }: { shown: ShownToken; onClose: () => void }) {
  const { t } = useTranslation();
  const message = useMessage();
  const input = useRef<InputRef>(null);
  const copy = async () => {
    if (await copyText(shown.token, input.current?.input ?? null)) message.success(t('gpsSettings.copied'));
    else message.error(t('gpsSettings.copyFailed'));
  };
  return (
    <Modal
      open
      title={t('gpsSettings.tokenTitle')}
      maskClosable={false}
      onCancel={onClose}
      footer={
        <Button type="primary" onClick={onClose}>
          {t('gpsSettings.done')}
        </Button>
      }
    >
      <Alert
        type="warning"
        showIcon
        title={t('gpsSettings.tokenWarning')}
        description={shown.replaced ? t('gpsSettings.tokenReplaced') : undefined}
        style={{ marginBottom: 12 }}
      />
      <Space.Compact style={{ width: '100%' }}>
        <Input
          ref={input}
          readOnly
          value={shown.token}
          aria-label={t('gpsSettings.tokenLabel')}
          data-testid="new-gps-token"
          style={{ fontFamily: 'monospace' }}
          onFocus={(event) => event.target.select()}
        />
        <Button type="primary" onClick={() => void copy()}>
          {t('gpsSettings.copy')}
        </Button>
      </Space.Compact>
    </Modal>
  );
}

/** Whether the ingestion token exists (its prefix, when made, last use) and a way to make a new one. */
function TokenCard() {
  const { t, i18n } = useTranslation();
  const token = useLoad('gps-ingestion-token', () => call(gpsSettingsApi.getGpsIngestionToken));
  const [shown, setShown] = useState<ShownToken>();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();

  const create = async () => {
    setBusy(true);
    try {
      const replaced = token.data?.exists === true;
      const { token: made, ...summary } = await call(gpsSettingsApi.createGpsIngestionToken);
      token.setData(summary);
      setShown({ token: made, replaced });
      setError(undefined);
    } catch (caught) {
      setError(problemText(caught, t));
    } finally {
      setBusy(false);
    }
  };

  const current = token.data;
  let status: React.ReactNode;
  if (token.error && !current) status = <LoadFailed error={token.error} onRetry={token.reload} />;
  else if (!current) status = <Spin />;
  else if (!current.exists) status = <Typography.Paragraph>{t('gpsSettings.tokenNone')}</Typography.Paragraph>;
  else {
    status = (
      <Typography.Paragraph>
        {t('gpsSettings.tokenExists', {
          prefix: current.prefix,
          createdAt: current.createdAt ? formatDateTime(current.createdAt, i18n.language) : '—',
        })}
        <br />
        {current.lastUsedAt
          ? t('gpsSettings.tokenLastUsed', { at: formatDateTime(current.lastUsedAt, i18n.language) })
          : t('gpsSettings.tokenNeverUsed')}
      </Typography.Paragraph>
    );
  }

  return (
    <Card size="small" title={t('gpsSettings.sections.token')} style={{ marginBottom: 12 }}>
      <div data-testid="gps-token-status">{status}</div>
      {error && <Alert type="error" role="alert" title={error} style={{ marginBottom: 12 }} />}
      {current?.exists ? (
        <Popconfirm title={t('gpsSettings.tokenRegenerateConfirm')} onConfirm={() => void create()}>
          <Button danger loading={busy}>
            {t('gpsSettings.tokenRegenerate')}
          </Button>
        </Popconfirm>
      ) : (
        <Button type="primary" loading={busy} disabled={!current} onClick={() => void create()}>
          {t('gpsSettings.tokenCreate')}
        </Button>
      )}
      {shown && <TokenDialog shown={shown} onClose={() => setShown(undefined)} />}
    </Card>
  );
}

/** The addresses trackers are configured with, built from this server's address, with short instructions. */
function EndpointsCard() {
  const { t } = useTranslation();
  const origin = serverOrigin();
  const endpoints = trackerEndpoints(origin);
  const placeholder = t('gpsSettings.tokenPlaceholder');
  const osmAnd = `${endpoints.osmAnd}?token=${placeholder}`;
  return (
    <Card size="small" title={t('gpsSettings.sections.endpoints')} data-testid="gps-endpoints">
      <Typography.Paragraph type="secondary">{t('gpsSettings.endpointsIntro')}</Typography.Paragraph>
      <Typography.Title level={5}>{t('gpsSettings.traccarTitle')}</Typography.Title>
      <Typography.Paragraph>{t('gpsSettings.traccarSteps')}</Typography.Paragraph>
      <Typography.Paragraph>
        {t('gpsSettings.positionsUrl')}:{' '}
        <Typography.Text code copyable data-testid="traccar-positions-url">
          {endpoints.traccarPositions}
        </Typography.Text>
        <br />
        {t('gpsSettings.eventsUrl')}:{' '}
        <Typography.Text code copyable data-testid="traccar-events-url">
          {endpoints.traccarEvents}
        </Typography.Text>
      </Typography.Paragraph>
      <Typography.Paragraph copyable={{ text: traccarConfig(origin, placeholder) }}>
        <pre data-testid="traccar-config" style={{ whiteSpace: 'pre-wrap', margin: 0 }}>
          {traccarConfig(origin, placeholder)}
        </pre>
      </Typography.Paragraph>
      <Typography.Title level={5}>{t('gpsSettings.osmAndTitle')}</Typography.Title>
      <Typography.Paragraph>{t('gpsSettings.osmAndSteps')}</Typography.Paragraph>
      <Typography.Paragraph>
        {t('gpsSettings.osmAndUrl')}:{' '}
        <Typography.Text code copyable data-testid="osmand-url">
          {osmAnd}
        </Typography.Text>
      </Typography.Paragraph>
    </Card>
  );
}

/** Settings → GPS: the organization's map tiles, geocoder, routing engine and rules; the tracker token and addresses. */
export function GpsTab() {
  const { t } = useTranslation();
  const settings = useLoad('gps-settings', () => call(gpsSettingsApi.getGpsSettings));
  let form: React.ReactNode;
  if (settings.error && !settings.data) form = <LoadFailed error={settings.error} onRetry={settings.reload} />;
  else if (!settings.data) form = <Spin description={t('gpsSettings.loading')} />;
  else form = <SettingsForm settings={settings.data} onSaved={settings.setData} />;
  return (
    <div style={{ maxWidth: 960 }}>
      {form}
      <TokenCard />
      <EndpointsCard />
    </div>
  );
}
