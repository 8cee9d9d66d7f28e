import { identityApi } from '@shared/api/identity';
import { type Skin, type SkinTokens, skinsApi } from '@shared/api/skins';
import {
  Alert,
  Button,
  Card,
  Col,
  ColorPicker,
  ConfigProvider,
  Form,
  Input,
  InputNumber,
  Layout,
  Popconfirm,
  Radio,
  Row,
  Space,
  Switch,
  Table,
  Tag,
  Typography,
} from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError, call } from '../../api';
import { useMessage } from '../../messages';
import { themeOf } from '../../skin';
import { useSkin } from '../../skin-context';
import { problemText } from './load';

/** The colours a skin may set, in the editor's order; the primary one is required. */
const COLORS = ['colorPrimary', 'colorHeader', 'colorSuccess', 'colorWarning', 'colorError', 'colorInfo'] as const;
type ColorKey = (typeof COLORS)[number];
const HEX = /^#[0-9a-fA-F]{6}$/;

interface EditorValues {
  name: string;
  mode: 'light' | 'dark';
  density: 'comfortable' | 'compact';
  borderRadius?: number | null;
  fontSize?: number | null;
  colors: Partial<Record<ColorKey, string>>;
}

function valuesOf(skin: Skin | undefined): EditorValues {
  const tokens = skin?.tokens;
  return {
    name: skin?.name ?? '',
    mode: tokens?.mode ?? 'light',
    density: tokens?.density ?? 'comfortable',
    borderRadius: tokens?.borderRadius ?? null,
    fontSize: tokens?.fontSize ?? null,
    colors: Object.fromEntries(COLORS.map((key) => [key, tokens?.[key] ?? ''])),
  };
}

/** The tokens of the editor's values: empty colours and sizes are left out (the default applies). */
function tokensOf(values: EditorValues): SkinTokens {
  const tokens: Record<string, unknown> = { mode: values.mode, colorPrimary: values.colors.colorPrimary ?? '' };
  if (values.density === 'compact') tokens.density = 'compact';
  if (typeof values.borderRadius === 'number') tokens.borderRadius = values.borderRadius;
  if (typeof values.fontSize === 'number') tokens.fontSize = values.fontSize;
  for (const key of COLORS) {
    const value = values.colors[key]?.trim();
    if (key !== 'colorPrimary' && value) tokens[key] = value;
  }
  return tokens as SkinTokens;
}

/** A colour as text (#rrggbb) with a picker beside it. */
function ColorField({ value, onChange, label }: { value?: string; onChange?: (value: string) => void; label: string }) {
  return (
    <Space.Compact style={{ width: '100%' }}>
      <Input aria-label={label} value={value} placeholder="#1677ff" onChange={(e) => onChange?.(e.target.value)} />
      <ColorPicker
        value={value && HEX.test(value) ? value : undefined}
        disabledAlpha
        onChangeComplete={(color) => onChange?.(color.toHexString())}
      />
    </Space.Compact>
  );
}

/** The interface in the skin being edited: a top bar, buttons, a tag, notices, a field. */
function Preview({ tokens }: { tokens: SkinTokens }) {
  const { t } = useTranslation();
  return (
    <ConfigProvider theme={themeOf(HEX.test(tokens.colorPrimary) ? tokens : undefined, false)}>
      <Layout data-testid="skin-preview" style={{ padding: 0, borderRadius: 8, overflow: 'hidden' }}>
        <Layout.Header style={{ height: 40, lineHeight: '40px', color: '#fff' }}>Orbita</Layout.Header>
        <Layout.Content style={{ padding: 16 }}>
          <Space direction="vertical" style={{ width: '100%' }}>
            <Space wrap>
              <Button type="primary" data-testid="skin-preview-primary">
                {t('skins.previewButton')}
              </Button>
              <Button>{t('skins.previewOther')}</Button>
              <Tag color="processing">{t('skins.previewTag')}</Tag>
              <Switch defaultChecked />
            </Space>
            <Alert type="success" showIcon title={t('skins.previewSuccess')} />
            <Alert type="error" showIcon title={t('skins.previewError')} />
            <Input placeholder={t('skins.previewInput')} />
          </Space>
        </Layout.Content>
      </Layout>
    </ConfigProvider>
  );
}

/** A skin made or edited, with the interface shown in it as it is edited. */
function SkinEditor({ skin, onDone }: { skin?: Skin; onDone: (saved?: Skin) => void }) {
  const { t } = useTranslation();
  const message = useMessage();
  const [form] = Form.useForm<EditorValues>();
  const [error, setError] = useState<string>();
  const [saving, setSaving] = useState(false);
  const watched = Form.useWatch([], form) as EditorValues | undefined;
  const tokens = tokensOf(watched ?? valuesOf(skin));
  const save = async (values: EditorValues) => {
    setSaving(true);
    setError(undefined);
    const body = { name: values.name, tokens: tokensOf(values) };
    try {
      const saved = skin
        ? await call(skinsApi.updateSkin, { params: { skinId: skin.id }, body })
        : await call(skinsApi.createSkin, { body });
      message.success(t('skins.saved', { name: saved.name }));
      onDone(saved);
    } catch (caught) {
      const errors = caught instanceof ApiError ? (caught.problem.errors ?? []) : [];
      // `#/name`, `#/tokens/<key>`: shown at their fields.
      form.setFields(
        errors.flatMap((e) => {
          const [, where, key] = e.pointer.split('/');
          const words = e.pointer === '#/name' && caught instanceof ApiError && caught.problem.status === 409;
          const detail = words ? t('skins.nameTaken') : e.detail;
          if (where === 'name') return [{ name: 'name' as const, errors: [detail] }];
          if (where !== 'tokens' || !key) return [];
          const name = (COLORS as readonly string[]).includes(key) ? ['colors', key] : [key];
          return [{ name: name as never, errors: [detail] }];
        }),
      );
      setError(errors.length > 0 ? t('skins.fixFields') : problemText(caught, t));
    } finally {
      setSaving(false);
    }
  };
  const colorRule = (required: boolean) => ({
    validator: async (_: unknown, value: string | undefined) => {
      if (!value?.trim()) {
        if (required) throw new Error(t('skins.required'));
        return;
      }
      if (!HEX.test(value.trim())) throw new Error(t('skins.invalidColor'));
    },
  });
  return (
    <Card
      data-testid="skin-editor"
      title={skin ? t('skins.editSkin', { name: skin.name }) : t('skins.newSkin')}
      style={{ marginTop: 16 }}
    >
      <Row gutter={24}>
        <Col xs={24} lg={12}>
          <Form form={form} layout="vertical" initialValues={valuesOf(skin)} onFinish={save}>
            <Form.Item name="name" label={t('skins.name')} rules={[{ required: true, message: t('skins.required') }]}>
              <Input maxLength={100} />
            </Form.Item>
            <Space size="large" wrap>
              <Form.Item name="mode" label={t('skins.mode')}>
                <Radio.Group
                  options={[
                    { value: 'light', label: t('skins.light') },
                    { value: 'dark', label: t('skins.dark') },
                  ]}
                />
              </Form.Item>
              <Form.Item name="density" label={t('skins.density')}>
                <Radio.Group
                  options={[
                    { value: 'comfortable', label: t('skins.comfortable') },
                    { value: 'compact', label: t('skins.compact') },
                  ]}
                />
              </Form.Item>
            </Space>
            <Row gutter={12}>
              {COLORS.map((key) => (
                <Col span={12} key={key}>
                  <Form.Item
                    name={['colors', key]}
                    label={t(`skins.${key}`)}
                    extra={key === 'colorPrimary' ? undefined : t('skins.colorHint')}
                    rules={[colorRule(key === 'colorPrimary')]}
                  >
                    <ColorField label={t(`skins.${key}`)} />
                  </Form.Item>
                </Col>
              ))}
            </Row>
            <Space size="large" wrap style={{ display: 'flex' }}>
              <Form.Item name="borderRadius" label={t('skins.borderRadius')}>
                <InputNumber aria-label={t('skins.borderRadius')} min={0} max={16} precision={0} />
              </Form.Item>
              <Form.Item name="fontSize" label={t('skins.fontSize')}>
                <InputNumber aria-label={t('skins.fontSize')} min={12} max={18} precision={0} />
              </Form.Item>
            </Space>
            {error && <Alert type="error" role="alert" showIcon title={error} style={{ marginBottom: 16 }} />}
            <Space>
              <Button type="primary" htmlType="submit" loading={saving}>
                {t('skins.save')}
              </Button>
              <Button onClick={() => onDone()}>{t('skins.cancel')}</Button>
            </Space>
          </Form>
        </Col>
        <Col xs={24} lg={12}>
          <Typography.Title level={5}>{t('skins.preview')}</Typography.Title>
          <Preview tokens={tokens} />
        </Col>
      </Row>
    </Card>
  );
}

/** Settings → Appearance: the organization's skins, which one is the organization's, each edited with a preview. */
export function AppearanceTab() {
  const { t } = useTranslation();
  const message = useMessage();
  const { list, activeSkinId, refresh } = useSkin();
  const [editing, setEditing] = useState<{ skin?: Skin }>();
  const [error, setError] = useState<string>();
  const setOrganizationSkin = async (skin: Skin | undefined) => {
    setError(undefined);
    try {
      await call(identityApi.updateOrganization, { body: { activeSkinId: skin?.id ?? null } });
      message.success(skin ? t('skins.organizationSet', { name: skin.name }) : t('skins.organizationCleared'));
      refresh();
    } catch (caught) {
      setError(problemText(caught, t));
    }
  };
  const remove = async (skin: Skin) => {
    setError(undefined);
    try {
      await call(skinsApi.deleteSkin, { params: { skinId: skin.id } });
      message.success(t('skins.deleted', { name: skin.name }));
      if (editing?.skin?.id === skin.id) setEditing(undefined);
      refresh();
    } catch (caught) {
      setError(problemText(caught, t));
    }
  };
  return (
    <div data-testid="appearance-tab">
      <Typography.Paragraph type="secondary">{t('skins.intro')}</Typography.Paragraph>
      {error && <Alert type="error" role="alert" showIcon title={error} style={{ marginBottom: 16 }} />}
      <Space style={{ marginBottom: 16 }} wrap>
        <Typography.Text>{t('skins.organizationSkin')}:</Typography.Text>
        <Radio.Group
          aria-label={t('skins.organizationSkin')}
          value={activeSkinId ?? ''}
          onChange={(e) => void setOrganizationSkin(list?.items.find((skin) => skin.id === e.target.value))}
          options={[
            { value: '', label: t('skins.defaultLook') },
            ...(list?.items ?? []).map((skin) => ({ value: skin.id, label: skin.name })),
          ]}
        />
        <Button type="primary" onClick={() => setEditing({})}>
          {t('skins.newSkin')}
        </Button>
      </Space>
      <Table<Skin>
        rowKey="id"
        size="small"
        loading={!list}
        pagination={false}
        dataSource={list?.items ?? []}
        locale={{ emptyText: t('skins.empty') }}
        columns={[
          {
            title: t('skins.name'),
            dataIndex: 'name',
            render: (name: string, skin) => (
              <Space>
                <span
                  aria-hidden
                  style={{
                    display: 'inline-block',
                    width: 28,
                    height: 14,
                    borderRadius: 3,
                    background: `linear-gradient(90deg, ${skin.tokens.colorHeader ?? '#001529'} 50%, ${skin.tokens.colorPrimary} 50%)`,
                  }}
                />
                {name}
                {skin.id === activeSkinId && <Tag color="blue">{t('skins.usedByOrganization')}</Tag>}
              </Space>
            ),
          },
          {
            title: t('skins.mode'),
            render: (_: unknown, skin) => t(skin.tokens.mode === 'dark' ? 'skins.dark' : 'skins.light'),
          },
          {
            title: '',
            align: 'right',
            render: (_: unknown, skin) => (
              <Space>
                <Button size="small" onClick={() => setEditing({ skin })}>
                  {t('skins.edit')}
                </Button>
                <Popconfirm
                  title={t('skins.deleteConfirm', { name: skin.name })}
                  okText={t('skins.delete')}
                  cancelText={t('skins.cancel')}
                  onConfirm={() => remove(skin)}
                >
                  <Button size="small" danger>
                    {t('skins.delete')}
                  </Button>
                </Popconfirm>
              </Space>
            ),
          },
        ]}
      />
      {editing && (
        <SkinEditor
          key={editing.skin?.id ?? 'new'}
          skin={editing.skin}
          onDone={(saved) => {
            setEditing(undefined);
            if (saved) refresh();
          }}
        />
      )}
    </div>
  );
}
