import {
  type Automation,
  type AutomationRun,
  automationsApi,
  type DryRunResult,
  MOSCOW_TIME,
} from '@shared/api/automations';
import { type Form as FormContract, formsApi } from '@shared/api/forms';
import { Alert, Button, Form, Input, Popconfirm, Select, Space, Switch, Table, Tag, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { call } from '../../api';
import { useMessage } from '../../messages';
import { ActionDialog, ActionFailed, formatDateTime, LoadFailed, problemText, useDialogAction, useLoad } from './load';

type Trigger = Automation['trigger'];

interface EditorValues {
  name: string;
  trigger: Trigger;
  formId?: string;
  statusId?: string;
  time?: string;
  enabled: boolean;
  code: string;
}

const RUN_COLORS: Record<AutomationRun['status'], string> = {
  succeeded: 'green',
  failed: 'red',
  timed_out: 'orange',
  out_of_memory: 'volcano',
};

function triggerConfig(values: EditorValues): Record<string, unknown> {
  if (values.trigger === 'schedule') return { time: values.time };
  return {
    ...(values.formId ? { formId: values.formId } : {}),
    ...(values.statusId ? { statusId: values.statusId } : {}),
  };
}

/** Creates or edits an automation: name, trigger (status picker or Moscow time), switch, code, and a dry run. */
function EditorDialog({
  automation,
  forms,
  onClose,
  onDone,
}: {
  automation?: Automation;
  forms: FormContract[];
  onClose: () => void;
  onDone: () => void;
}) {
  const { t } = useTranslation();
  const message = useMessage();
  const [form] = Form.useForm<EditorValues>();
  const trigger = Form.useWatch('trigger', form) ?? automation?.trigger ?? 'task.status_changed';
  const formId = Form.useWatch('formId', form);
  const [testTaskId, setTestTaskId] = useState('');
  const [dryRun, setDryRun] = useState<DryRunResult>();
  const [testError, setTestError] = useState<string>();
  const config = (automation?.triggerConfig ?? {}) as { formId?: string; statusId?: string; time?: string };
  const statuses = forms
    .filter((one) => !formId || one.id === formId)
    .flatMap((one) => one.statuses.map((status) => ({ value: status.id, label: `${one.name}: ${status.name}` })));

  const save = useDialogAction(async (values: EditorValues) => {
    const body = {
      name: values.name,
      enabled: values.enabled,
      trigger: values.trigger,
      triggerConfig: triggerConfig(values),
      code: values.code ?? '',
    };
    if (automation) await call(automationsApi.updateAutomation, { params: { automationId: automation.id }, body });
    else await call(automationsApi.createAutomation, { body });
    message.success(t('automations.saved'));
    onDone();
  });

  const test = async () => {
    if (!automation) return;
    setTestError(undefined);
    try {
      setDryRun(
        await call(automationsApi.testAutomation, {
          params: { automationId: automation.id },
          body: { taskId: testTaskId.trim() },
        }),
      );
    } catch (caught) {
      setTestError(problemText(caught, t));
    }
  };

  return (
    <ActionDialog
      title={automation ? t('automations.editTitle', { name: automation.name }) : t('automations.createTitle')}
      okText={t('automations.save')}
      busy={save.busy}
      error={save.error}
      onOk={() => form.submit()}
      onCancel={onClose}
    >
      <Form
        form={form}
        name="automation"
        layout="vertical"
        initialValues={{
          name: automation?.name ?? '',
          trigger: automation?.trigger ?? 'task.status_changed',
          formId: config.formId,
          statusId: config.statusId,
          time: config.time ?? '09:00',
          enabled: automation?.enabled ?? true,
          code: automation?.code ?? "ctx.log('Hello', ctx.task?.title);",
        }}
        onFinish={save.run}
      >
        <Form.Item
          name="name"
          label={t('automations.name')}
          rules={[{ required: true, whitespace: true, message: t('errors.required') }]}
        >
          <Input autoComplete="off" autoFocus />
        </Form.Item>
        <Form.Item name="trigger" label={t('automations.trigger')}>
          <Select
            options={(['task.status_changed', 'schedule'] as const).map((value) => ({
              value,
              label: t(`automations.triggers.${value}`),
            }))}
          />
        </Form.Item>
        {trigger === 'schedule' ? (
          <Form.Item
            name="time"
            label={t('automations.time')}
            extra={t('automations.timeHint')}
            rules={[{ pattern: MOSCOW_TIME, required: true, message: t('automations.timeHint') }]}
          >
            <Input placeholder="09:00" style={{ width: 120 }} />
          </Form.Item>
        ) : (
          <Space style={{ width: '100%' }} align="start">
            <Form.Item name="formId" label={t('automations.form')} style={{ minWidth: 200 }}>
              <Select
                allowClear
                placeholder={t('automations.anyForm')}
                options={forms.map((one) => ({ value: one.id, label: one.name }))}
              />
            </Form.Item>
            <Form.Item name="statusId" label={t('automations.status')} style={{ minWidth: 260 }}>
              <Select allowClear placeholder={t('automations.anyStatus')} options={statuses} />
            </Form.Item>
          </Space>
        )}
        <Form.Item name="enabled" label={t('automations.enabled')} valuePropName="checked">
          <Switch />
        </Form.Item>
        <Form.Item name="code" label={t('automations.code')}>
          <Input.TextArea
            rows={10}
            spellCheck={false}
            style={{ fontFamily: 'monospace' }}
            aria-label={t('automations.code')}
          />
        </Form.Item>
      </Form>
      {automation && (
        <Space direction="vertical" style={{ width: '100%' }}>
          <Typography.Text strong>{t('automations.test')}</Typography.Text>
          <Space.Compact style={{ width: '100%' }}>
            <Input
              placeholder={t('automations.testTask')}
              aria-label={t('automations.testTask')}
              value={testTaskId}
              onChange={(event) => setTestTaskId(event.target.value)}
            />
            <Button onClick={() => void test()}>{t('automations.testRun')}</Button>
          </Space.Compact>
          {testError && <Alert type="error" role="alert" title={testError} />}
          {dryRun && <DryRunReport result={dryRun} />}
        </Space>
      )}
    </ActionDialog>
  );
}

function DryRunReport({ result }: { result: DryRunResult }) {
  const { t } = useTranslation();
  return (
    <div data-testid="dry-run">
      <Tag color={RUN_COLORS[result.status]}>{t(`automations.runStatus.${result.status}`)}</Tag>
      {result.error && (
        <Typography.Text type="danger">
          {result.errorLine
            ? t('automations.errorLine', { error: result.error, line: result.errorLine })
            : result.error}
        </Typography.Text>
      )}
      <pre style={{ maxHeight: 160, overflow: 'auto' }}>{result.logs.join('\n')}</pre>
      <Typography.Text type="secondary">{t('automations.testNothingKept')}</Typography.Text>
      <pre style={{ maxHeight: 160, overflow: 'auto' }}>
        {result.changes.length === 0
          ? t('automations.noChanges')
          : result.changes
              .map((change) => `${change.call}(${change.args.map((arg) => JSON.stringify(arg)).join(', ')})`)
              .join('\n')}
      </pre>
    </div>
  );
}

/** The run log of one automation, newest first. */
function RunsPanel({ automation }: { automation: Automation }) {
  const { t, i18n } = useTranslation();
  const runs = useLoad(`runs-${automation.id}`, () =>
    call(automationsApi.listAutomationRuns, { params: { automationId: automation.id }, query: { limit: 50 } }),
  );
  if (runs.error) return <LoadFailed error={runs.error} onRetry={runs.reload} />;
  return (
    <div data-testid="automation-runs">
      <Space style={{ marginBottom: 8 }}>
        <Typography.Title level={5} style={{ margin: 0 }}>
          {t('automations.runsTitle', { name: automation.name })}
        </Typography.Title>
        <Button size="small" onClick={runs.reload}>
          {t('automations.reload')}
        </Button>
      </Space>
      <Table<AutomationRun>
        rowKey="id"
        size="small"
        loading={runs.loading}
        dataSource={runs.data?.items ?? []}
        locale={{ emptyText: t('automations.noRuns') }}
        pagination={false}
        expandable={{
          rowExpandable: (run) => run.logs.length > 0,
          expandedRowRender: (run) => <pre style={{ margin: 0 }}>{run.logs.join('\n')}</pre>,
        }}
        columns={[
          { title: t('automations.startedAt'), render: (_, run) => formatDateTime(run.startedAt, i18n.language) },
          {
            title: t('automations.result'),
            render: (_, run) => <Tag color={RUN_COLORS[run.status]}>{t(`automations.runStatus.${run.status}`)}</Tag>,
          },
          {
            title: t('automations.duration'),
            render: (_, run) => t('automations.durationMs', { ms: Math.round(run.durationMs) }),
          },
          {
            title: t('automations.logs'),
            render: (_, run) =>
              run.error
                ? run.errorLine
                  ? t('automations.errorLine', { error: run.error, line: run.errorLine })
                  : run.error
                : run.logs[0],
          },
        ]}
      />
    </div>
  );
}

/** Automations of the organization: list, editor with its trigger and code, switch, run log and dry run. */
export function AutomationsTab() {
  const { t } = useTranslation();
  const message = useMessage();
  const automations = useLoad('automations', () => call(automationsApi.listAutomations));
  const forms = useLoad('forms', async () => (await call(formsApi.listForms)).items);
  const [editing, setEditing] = useState<{ automation?: Automation }>();
  const [shown, setShown] = useState<string>();
  const [error, setError] = useState<string>();

  const statusName = new Map(
    (forms.data ?? []).flatMap((one) => one.statuses.map((status) => [status.id, status.name] as const)),
  );
  const describeTrigger = (automation: Automation) => {
    const config = automation.triggerConfig as { time?: string; statusId?: string };
    if (automation.trigger === 'schedule') return t('automations.everyDayAt', { time: config.time });
    return config.statusId
      ? t('automations.onStatus', { status: statusName.get(config.statusId) ?? config.statusId })
      : t('automations.onAnyStatus');
  };
  const act = async (work: () => Promise<unknown>, done?: string) => {
    setError(undefined);
    try {
      await work();
      if (done) message.success(done);
      automations.reload();
    } catch (caught) {
      setError(problemText(caught, t));
    }
  };

  if (automations.error) return <LoadFailed error={automations.error} onRetry={automations.reload} />;
  const list = automations.data?.items ?? [];
  const shownAutomation = list.find((automation) => automation.id === shown);
  return (
    <div data-testid="automations-tab">
      <Typography.Paragraph type="secondary">{t('automations.intro')}</Typography.Paragraph>
      <Button type="primary" onClick={() => setEditing({})} style={{ marginBottom: 12 }}>
        {t('automations.create')}
      </Button>
      <ActionFailed error={error} onClose={() => setError(undefined)} />
      <Table<Automation>
        rowKey="id"
        size="small"
        loading={automations.loading}
        dataSource={list}
        locale={{ emptyText: t('automations.empty') }}
        pagination={false}
        columns={[
          { title: t('automations.name'), dataIndex: 'name' },
          { title: t('automations.trigger'), render: (_, automation) => describeTrigger(automation) },
          {
            title: t('automations.enabled'),
            render: (_, automation) => (
              <Switch
                size="small"
                checked={automation.enabled}
                aria-label={`${t('automations.enabled')}: ${automation.name}`}
                onChange={(enabled) =>
                  void act(() =>
                    call(automationsApi.updateAutomation, {
                      params: { automationId: automation.id },
                      body: { enabled },
                    }),
                  )
                }
              />
            ),
          },
          {
            title: '',
            render: (_, automation) => (
              <Space>
                <Button size="small" onClick={() => setEditing({ automation })}>
                  {t('automations.edit')}
                </Button>
                <Button size="small" onClick={() => setShown(automation.id)}>
                  {t('automations.runs')}
                </Button>
                <Popconfirm
                  title={t('automations.deleteConfirm', { name: automation.name })}
                  onConfirm={() =>
                    void act(
                      () => call(automationsApi.deleteAutomation, { params: { automationId: automation.id } }),
                      t('automations.deleted'),
                    )
                  }
                >
                  <Button size="small" danger>
                    {t('automations.delete')}
                  </Button>
                </Popconfirm>
              </Space>
            ),
          },
        ]}
      />
      {shownAutomation && (
        <div style={{ marginTop: 16 }}>
          <RunsPanel key={shownAutomation.id} automation={shownAutomation} />
        </div>
      )}
      {editing && (
        <EditorDialog
          automation={editing.automation}
          forms={forms.data ?? []}
          onClose={() => setEditing(undefined)}
          onDone={() => {
            setEditing(undefined);
            automations.reload();
          }}
        />
      )}
    </div>
  );
}
