import { type ApiAccess, type ApiKeyMode, type Bot, botsApi } from '@shared/api/bots';
import { directoriesApi } from '@shared/api/directories';
import type { CallResult } from '@shared/api/endpoint';
import { formsApi } from '@shared/api/forms';
import {
  Alert,
  Button,
  Card,
  Form,
  Input,
  type InputRef,
  Modal,
  Popconfirm,
  Radio,
  Select,
  Space,
  Switch,
  Table,
  Tag,
  Typography,
} from 'antd';
import type { TFunction } from 'i18next';
import { useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError, call, serverUrl } from '../../api';
import { useMessage } from '../../messages';
import { ActionDialog, ActionFailed, formatDateTime, LoadFailed, problemText, useDialogAction, useLoad } from './load';

const MODES: readonly ApiKeyMode[] = ['read', 'write', 'full'];
const MODE_COLORS: Record<ApiKeyMode, string> = { read: 'blue', write: 'gold', full: 'red' };

interface Named {
  id: string;
  name: string;
}

interface BotValues {
  name: string;
  description: string;
  enabled: boolean;
  mode: ApiKeyMode;
  /** The key reaches every form, those made later too (the list is then not sent). */
  allForms: boolean;
  formIds: string[];
  allDirectories: boolean;
  tableIds: string[];
}

/** A raw key just made, to be shown once. */
interface ShownKey {
  botName: string;
  key: string;
}

/** Where this server is, as clients elsewhere reach it: the desktop app's configured server, else this page's origin. */
function serverOrigin(): string {
  return serverUrl() || globalThis.location.origin;
}

/** What a dialog sends as the bot's API access: the lists only when the switch "All …" is off (absent = all, [] = none). */
function apiAccessOf(values: BotValues): ApiAccess {
  if (!values.enabled) return { enabled: false };
  return {
    enabled: true,
    mode: values.mode,
    ...(values.allForms ? {} : { formIds: values.formIds ?? [] }),
    ...(values.allDirectories ? {} : { tableIds: values.tableIds ?? [] }),
  };
}

/** Options of a picker: the known items by name, and chosen ids no longer known, named as such. */
function pickerOptions(items: Named[], chosen: string[], unknown: (id: string) => string) {
  const known = new Set(items.map((item) => item.id));
  return [
    ...items.map((item) => ({ value: item.id, label: item.name })),
    ...chosen.filter((id) => !known.has(id)).map((id) => ({ value: id, label: unknown(id) })),
  ];
}

/**
 * The forms and directories the server refused as unknown (deleted meanwhile), named in the user's
 * language; undefined for any other failure.
 */
function refusedTargets(caught: unknown, t: TFunction) {
  if (!(caught instanceof ApiError)) return undefined;
  const refused = (caught.problem.errors ?? []).flatMap((error) => {
    const id = /[0-9a-f-]{36}/.exec(error.detail)?.[0] ?? '';
    if (error.code === 'unknown_form') return [t('bots.unknownForm', { id })];
    if (error.code === 'unknown_directory') return [t('bots.unknownDirectory', { id })];
    return [];
  });
  return refused.length > 0 ? refused.join(' ') : undefined;
}

/** Copies `text`: the clipboard API, else the selected text of `input` the old way; whether it worked. */
export async function copyText(text: string, input: HTMLInputElement | null): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    if (!input) return false;
    input.select();
    return document.execCommand('copy');
  }
}

/** The raw key, once: a warning that it is not shown again, the key and a copy button. */
function KeyDialog({ shown, onClose }: { shown: ShownKey; onClose: () => void }) {
  const { t } = useTranslation();
  const message = useMessage();
  const input = useRef<InputRef>(null);
  const copy = async () => {
    if (await copyText(shown.key, input.current?.input ?? null)) message.success(t('bots.copied'));
    else message.error(t('bots.copyFailed'));
  };
  return (
    <Modal
      open
      title={t('bots.keyTitle', { name: shown.botName })}
      maskClosable={false}
      onCancel={onClose}
      footer={
        <Button type="primary" onClick={onClose}>
          {t('bots.done')}
        </Button>
      }
    >
      <Alert type="warning" showIcon title={t('bots.keyWarning')} style={{ marginBottom: 12 }} />
      <Space.Compact style={{ width: '100%' }}>
        <Input
          ref={input}
          readOnly
          value={shown.key}
          aria-label={t('bots.keyLabel')}
          data-testid="new-api-key"
          style={{ fontFamily: 'monospace' }}
          onFocus={(event) => event.target.select()}
        />
        <Button type="primary" onClick={() => void copy()}>
          {t('bots.copy')}
        </Button>
      </Space.Compact>
    </Modal>
  );
}

/** Creates or edits a bot: name, description, API access with its mode and the forms and directories it reaches. */
function BotDialog({
  bot,
  forms,
  directories,
  onClose,
  onSaved,
}: {
  bot?: Bot;
  forms: Named[];
  directories: Named[];
  onClose: () => void;
  onSaved: (shown: ShownKey | undefined) => void;
}) {
  const { t } = useTranslation();
  const message = useMessage();
  const [form] = Form.useForm<BotValues>();
  const key = bot?.apiKey ?? null;
  const initial: BotValues = {
    name: bot?.name ?? '',
    description: bot?.description ?? '',
    enabled: bot ? key !== null : true,
    mode: key?.mode ?? 'read',
    allForms: key ? key.formIds === null : true,
    formIds: key?.formIds ?? [],
    allDirectories: key ? key.tableIds === null : true,
    tableIds: key?.tableIds ?? [],
  };
  const enabled = Form.useWatch('enabled', form) ?? initial.enabled;
  const allForms = Form.useWatch('allForms', form) ?? initial.allForms;
  const allDirectories = Form.useWatch('allDirectories', form) ?? initial.allDirectories;
  const formIds = Form.useWatch('formIds', form) ?? initial.formIds;
  const tableIds = Form.useWatch('tableIds', form) ?? initial.tableIds;

  const [refused, setRefused] = useState<string>();
  const save = useDialogAction(async () => {
    // Every value, those of the parts hidden meanwhile too.
    const values = form.getFieldsValue(true) as BotValues;
    const body = {
      name: values.name,
      description: values.description ?? '',
      apiAccess: apiAccessOf(values),
    };
    setRefused(undefined);
    let saved: CallResult<typeof botsApi.createBot>;
    try {
      saved = bot
        ? await call(botsApi.updateBot, { params: { botId: bot.id }, body })
        : await call(botsApi.createBot, { body });
    } catch (caught) {
      const words = refusedTargets(caught, t);
      if (!words) throw caught;
      setRefused(words);
      return;
    }
    message.success(t('bots.saved'));
    const made = saved.apiKey && 'key' in saved.apiKey ? saved.apiKey.key : undefined;
    onSaved(made ? { botName: saved.name, key: made } : undefined);
  });

  const unknown = (id: string) => t('bots.unknownItem', { id });
  return (
    <ActionDialog
      title={bot ? t('bots.editTitle', { name: bot.name }) : t('bots.createTitle')}
      okText={t('bots.save')}
      busy={save.busy}
      error={refused ?? save.error}
      onOk={() => form.submit()}
      onCancel={onClose}
    >
      <Form form={form} name="bot" layout="vertical" initialValues={initial} onFinish={() => void save.run()}>
        <Form.Item
          name="name"
          label={t('bots.name')}
          rules={[{ required: true, whitespace: true, message: t('errors.required') }]}
        >
          <Input autoComplete="off" autoFocus maxLength={200} />
        </Form.Item>
        <Form.Item name="description" label={t('bots.description')}>
          <Input.TextArea rows={2} maxLength={2000} />
        </Form.Item>
        <Form.Item
          name="enabled"
          label={t('bots.apiAccess')}
          valuePropName="checked"
          extra={bot && key ? t('bots.apiAccessHint') : undefined}
        >
          <Switch />
        </Form.Item>
        {enabled && (
          <>
            <Form.Item name="mode" label={t('bots.mode')}>
              <Radio.Group>
                <Space direction="vertical">
                  {MODES.map((mode) => (
                    <Radio key={mode} value={mode}>
                      <Typography.Text strong>{t(`bots.modes.${mode}`)}</Typography.Text>
                      {' — '}
                      <Typography.Text type="secondary">{t(`bots.modeHints.${mode}`)}</Typography.Text>
                    </Radio>
                  ))}
                </Space>
              </Radio.Group>
            </Form.Item>
            <ScopePicker
              title={t('bots.forms')}
              allName="allForms"
              listName="formIds"
              all={allForms}
              allLabel={t('bots.allForms')}
              allHint={t('bots.allFormsHint')}
              noneHint={t('bots.noForms')}
              chooseLabel={t('bots.chooseForms')}
              chosen={formIds}
              options={pickerOptions(forms, formIds, unknown)}
            />
            <ScopePicker
              title={t('bots.directories')}
              allName="allDirectories"
              listName="tableIds"
              all={allDirectories}
              allLabel={t('bots.allDirectories')}
              allHint={t('bots.allDirectoriesHint')}
              noneHint={t('bots.noDirectories')}
              chooseLabel={t('bots.chooseDirectories')}
              chosen={tableIds}
              options={pickerOptions(directories, tableIds, unknown)}
            />
          </>
        )}
      </Form>
    </ActionDialog>
  );
}

/** How an AI agent connects: the MCP endpoint of this server, a client configuration and the API docs. */
function McpPanel() {
  const { t } = useTranslation();
  const origin = serverOrigin();
  const endpoint = `${origin}/api/mcp`;
  const configuration = JSON.stringify(
    { mcpServers: { orbita: { type: 'http', url: endpoint, headers: { Authorization: 'Bearer orb_…' } } } },
    null,
    2,
  );
  return (
    <Card size="small" title={t('bots.mcpTitle')} style={{ marginTop: 16 }} data-testid="mcp-panel">
      <Typography.Paragraph type="secondary">{t('bots.mcpIntro')}</Typography.Paragraph>
      <Typography.Paragraph>
        {t('bots.mcpEndpoint')}:{' '}
        <Typography.Text code copyable data-testid="mcp-endpoint">
          {endpoint}
        </Typography.Text>
      </Typography.Paragraph>
      <Typography.Paragraph style={{ marginBottom: 4 }}>{t('bots.mcpConfig')}</Typography.Paragraph>
      <Typography.Paragraph copyable={{ text: configuration }}>
        <pre style={{ margin: 0 }} data-testid="mcp-config">
          {configuration}
        </pre>
      </Typography.Paragraph>
      <a href={`${origin}/api/docs`} target="_blank" rel="noreferrer">
        {t('bots.docs')}
      </a>
    </Card>
  );
}

/** Bots of the organization: list with their keys' summaries, editor, the raw key once, regenerate, delete, MCP. */
export function BotsTab() {
  const { t, i18n } = useTranslation();
  const message = useMessage();
  const bots = useLoad('bots', () => call(botsApi.listBots));
  const forms = useLoad('forms', async () => (await call(formsApi.listForms)).items);
  const directories = useLoad('directories', async () => (await call(directoriesApi.listDirectories)).items);
  const [editing, setEditing] = useState<{ bot?: Bot }>();
  const [shown, setShown] = useState<ShownKey>();
  const [error, setError] = useState<string>();

  const formName = new Map((forms.data ?? []).map((one) => [one.id, one.name] as const));
  const directoryName = new Map((directories.data ?? []).map((one) => [one.id, one.name] as const));
  const reach = (ids: string[] | null, names: Map<string, string>, all: string) => {
    if (ids === null) return all;
    if (ids.length === 0) return t('bots.none');
    return ids.map((id) => names.get(id) ?? t('bots.unknownItem', { id })).join(', ');
  };
  const act = async (work: () => Promise<unknown>, done?: string) => {
    setError(undefined);
    try {
      await work();
      if (done) message.success(done);
      bots.reload();
    } catch (caught) {
      setError(problemText(caught, t));
    }
  };

  if (bots.error) return <LoadFailed error={bots.error} onRetry={bots.reload} />;
  return (
    <div data-testid="bots-tab">
      <Typography.Paragraph type="secondary">{t('bots.intro')}</Typography.Paragraph>
      <Button type="primary" onClick={() => setEditing({})} style={{ marginBottom: 12 }}>
        {t('bots.create')}
      </Button>
      <ActionFailed error={error} onClose={() => setError(undefined)} />
      <Table<Bot>
        rowKey="id"
        size="small"
        loading={bots.loading}
        dataSource={bots.data?.items ?? []}
        locale={{ emptyText: t('bots.empty') }}
        pagination={false}
        columns={[
          {
            title: t('bots.name'),
            render: (_, bot) => (
              <>
                <div>{bot.name}</div>
                {bot.description && <Typography.Text type="secondary">{bot.description}</Typography.Text>}
              </>
            ),
          },
          {
            title: t('bots.apiAccess'),
            render: (_, bot) =>
              bot.apiKey ? (
                <Tag color={MODE_COLORS[bot.apiKey.mode]}>{t(`bots.modes.${bot.apiKey.mode}`)}</Tag>
              ) : (
                <Tag>{t('bots.off')}</Tag>
              ),
          },
          {
            title: t('bots.forms'),
            render: (_, bot) => (bot.apiKey ? reach(bot.apiKey.formIds, formName, t('bots.allForms')) : '—'),
          },
          {
            title: t('bots.directories'),
            render: (_, bot) =>
              bot.apiKey ? reach(bot.apiKey.tableIds, directoryName, t('bots.allDirectories')) : '—',
          },
          {
            title: t('bots.key'),
            render: (_, bot) =>
              bot.apiKey ? (
                <Typography.Text
                  code
                  data-testid="key-summary"
                >{`${bot.apiKey.prefix}…${bot.apiKey.last4}`}</Typography.Text>
              ) : (
                '—'
              ),
          },
          { title: t('bots.created'), render: (_, bot) => formatDateTime(bot.createdAt, i18n.language) },
          {
            title: t('bots.lastUsed'),
            render: (_, bot) =>
              bot.apiKey?.lastUsedAt ? formatDateTime(bot.apiKey.lastUsedAt, i18n.language) : t('bots.neverUsed'),
          },
          {
            title: '',
            render: (_, bot) => (
              <Space wrap>
                <Button size="small" onClick={() => setEditing({ bot })}>
                  {t('bots.edit')}
                </Button>
                {bot.apiKey && (
                  <Popconfirm
                    title={t('bots.regenerateConfirm', { name: bot.name })}
                    onConfirm={() =>
                      void act(async () => {
                        const made = await call(botsApi.regenerateBotKey, { params: { botId: bot.id } });
                        setShown({ botName: bot.name, key: made.key });
                      })
                    }
                  >
                    <Button size="small">{t('bots.regenerate')}</Button>
                  </Popconfirm>
                )}
                <Popconfirm
                  title={t('bots.deleteConfirm', { name: bot.name })}
                  onConfirm={() =>
                    void act(() => call(botsApi.deleteBot, { params: { botId: bot.id } }), t('bots.deleted'))
                  }
                >
                  <Button size="small" danger>
                    {t('bots.delete')}
                  </Button>
                </Popconfirm>
              </Space>
            ),
          },
        ]}
      />
      <McpPanel />
      {editing && (
        <BotDialog
          bot={editing.bot}
          forms={forms.data ?? []}
          directories={directories.data ?? []}
          onClose={() => setEditing(undefined)}
          onSaved={(made) => {
            setEditing(undefined);
            setShown(made);
            bots.reload();
          }}
        />
      )}
      {shown && <KeyDialog shown={shown} onClose={() => setShown(undefined)} />}
    </div>
  );
}

/** What a key reaches of one kind (forms or directories): all of them, or a chosen list. */
function ScopePicker(props: {
  title: string;
  allName: string;
  listName: string;
  all: boolean;
  allLabel: string;
  allHint: string;
  noneHint: string;
  chooseLabel: string;
  chosen: readonly string[];
  options: ReturnType<typeof pickerOptions>;
}) {
  return (
    <>
      <Typography.Text strong>{props.title}</Typography.Text>
      <Form.Item
        name={props.allName}
        valuePropName="checked"
        extra={props.all ? props.allHint : undefined}
        style={{ marginBottom: 8 }}
      >
        <Switch checkedChildren={props.allLabel} unCheckedChildren={props.allLabel} aria-label={props.allLabel} />
      </Form.Item>
      {!props.all && (
        <Form.Item name={props.listName} extra={props.chosen.length === 0 ? props.noneHint : undefined}>
          <Select
            mode="multiple"
            allowClear
            aria-label={props.chooseLabel}
            placeholder={props.chooseLabel}
            optionFilterProp="label"
            options={props.options}
          />
        </Form.Item>
      )}
    </>
  );
}
