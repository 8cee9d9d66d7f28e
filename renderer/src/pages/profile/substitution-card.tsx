import { type Delegation, delegationsApi } from '@shared/api/delegations';
import { formsApi } from '@shared/api/forms';
import type { User } from '@shared/api/identity';
import {
  Alert,
  Button,
  Card,
  Form,
  type FormInstance,
  Input,
  Modal,
  Popconfirm,
  Progress,
  Select,
  Space,
  Table,
  Typography,
} from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { call } from '../../api';
import { useMessage } from '../../messages';
import { useCall } from '../../use-api';
import {
  applicationText,
  fromMoscow,
  inProgress,
  moscow,
  nextStartIn,
  POLL_MS,
  percentOf,
  refusal,
  toMoscowInput,
} from './substitution-model';

interface DelegationValues {
  substituteUserId: string;
  formId?: string | null;
  from: string;
  to: string;
}

/** The terms of a delegation as the form has them, as the server takes them. */
function requestOf(userId: string, values: DelegationValues) {
  return {
    userId,
    substituteUserId: values.substituteUserId,
    formId: values.formId ?? null,
    from: fromMoscow(values.from),
    to: fromMoscow(values.to),
  };
}

/**
 * The controls of one delegation — substitute, form (none: all forms), period in Moscow time — the
 * same when naming a substitute and when changing one.
 */
function DelegationFields({
  userId,
  users,
  forms,
}: {
  userId: string;
  users: User[];
  forms: { id: string; name: string }[];
}) {
  const { t } = useTranslation();
  const required = [{ required: true, message: t('errors.required') }];
  return (
    <Space wrap align="start">
      <Form.Item name="substituteUserId" label={t('profile.substitution.substitute')} rules={required}>
        <Select
          style={{ width: 220 }}
          showSearch={{ optionFilterProp: 'label' }}
          options={users
            .filter((user) => user.id !== userId && user.status === 'active')
            .map((user) => ({ value: user.id, label: user.name }))}
        />
      </Form.Item>
      <Form.Item name="formId" label={t('profile.substitution.scope')}>
        <Select
          allowClear
          style={{ width: 200 }}
          placeholder={t('profile.substitution.default')}
          options={forms.map((one) => ({ value: one.id, label: one.name }))}
        />
      </Form.Item>
      <Form.Item name="from" label={t('profile.substitution.from')} rules={required}>
        <Input type="datetime-local" aria-label={t('profile.substitution.from')} />
      </Form.Item>
      <Form.Item name="to" label={t('profile.substitution.to')} rules={required}>
        <Input type="datetime-local" aria-label={t('profile.substitution.to')} />
      </Form.Item>
    </Space>
  );
}

/** What naming or changing a delegation answers: `undefined` when saved, else the alert's words (fields marked). */
async function save(
  form: FormInstance<DelegationValues>,
  t: Parameters<typeof refusal>[1],
  send: () => Promise<unknown>,
): Promise<string | undefined> {
  try {
    await send();
    return undefined;
  } catch (caught) {
    const refused = refusal(caught, t);
    form.setFields(refused.fields);
    return refused.message;
  }
}

/** A delegation's terms changed in a dialog with the same controls as naming one. */
function EditDelegation({
  delegation,
  users,
  forms,
  onClose,
  onSaved,
}: {
  delegation: Delegation;
  users: User[];
  forms: { id: string; name: string }[];
  onClose: () => void;
  onSaved: () => void;
}) {
  const { t } = useTranslation();
  const message = useMessage();
  const [form] = Form.useForm<DelegationValues>();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);

  const submit = async (values: DelegationValues) => {
    setBusy(true);
    const failed = await save(form, t, () =>
      call(delegationsApi.updateDelegation, {
        params: { delegationId: delegation.id },
        body: requestOf(delegation.userId, values),
      }),
    );
    setBusy(false);
    setError(failed);
    if (failed) return;
    message.success(t('profile.substitution.updated'));
    onSaved();
  };

  return (
    <Modal
      open
      title={t('profile.substitution.editTitle')}
      okText={t('profile.substitution.save')}
      cancelText={t('profile.substitution.cancel')}
      confirmLoading={busy}
      onOk={() => form.submit()}
      onCancel={onClose}
      width={560}
    >
      {error && <Alert type="error" role="alert" title={error} style={{ marginBottom: 8 }} />}
      <Form
        form={form}
        name="edit-delegation"
        layout="vertical"
        initialValues={{
          substituteUserId: delegation.substituteUserId,
          formId: delegation.formId ?? undefined,
          from: toMoscowInput(delegation.from),
          to: toMoscowInput(delegation.to),
        }}
        onFinish={submit}
      >
        <DelegationFields userId={delegation.userId} users={users} forms={forms} />
      </Form>
    </Modal>
  );
}

/** How far adding the substitute to the absent user's open tasks went (a bar while it runs). */
function ApplicationProgress({ delegation }: { delegation: Delegation }) {
  const { t, i18n } = useTranslation();
  const application = delegation.application;
  const text = applicationText(t, i18n.language, delegation, new Date());
  return (
    <div data-testid="delegation-progress" data-state={application?.state ?? 'none'} style={{ minWidth: 180 }}>
      <Typography.Text type={application?.state === 'done' ? undefined : 'secondary'}>{text}</Typography.Text>
      {application?.state === 'running' && (
        <Progress percent={percentOf(application)} size="small" aria-label={text} status="active" />
      )}
    </div>
  );
}

/**
 * Asks again for the delegations whose bulk application is going on (every {@link POLL_MS}, only
 * while one is, and never once the section is gone), and looks again when a scheduled one starts.
 */
function useApplicationProgress(
  items: Delegation[] | undefined,
  update: (delegation: Delegation) => void,
  reload: () => void,
) {
  const [tick, setTick] = useState(0);
  const now = new Date();
  const running = (items ?? []).filter((one) => inProgress(one, now)).map((one) => one.id);
  const runningKey = running.join(',');
  const wait = nextStartIn(items ?? [], now);

  // biome-ignore lint/correctness/useExhaustiveDependencies: `runningKey` names the ids polled.
  useEffect(() => {
    if (runningKey === '') return;
    let current = true;
    const timer = setInterval(() => {
      for (const delegationId of runningKey.split(',')) {
        call(delegationsApi.getDelegation, { params: { delegationId } })
          .then((delegation) => current && update(delegation))
          // Deleted meanwhile (or the network is gone): the list is read again.
          .catch(() => current && reload());
      }
    }, POLL_MS);
    return () => {
      current = false;
      clearInterval(timer);
    };
  }, [runningKey]);

  // A scheduled application starting while the section is open: look again at its start.
  useEffect(() => {
    if (wait === undefined || wait > 2 ** 31 - 1) return;
    const timer = setTimeout(() => setTick((value) => value + 1), wait + 100);
    return () => clearTimeout(timer);
  }, [wait]);
  return tick;
}

/**
 * The "Substitution" section of a profile: who replaces the user while they are away, by default
 * or for one form, and for which period (Moscow time), with how far the substitute has been added to
 * the user's open tasks; the user's own, or anyone's for administrators (the users page opens it
 * with the user's `userId`).
 */
export function SubstitutionCard({ userId, users, editable }: { userId: string; users: User[]; editable: boolean }) {
  const { t } = useTranslation();
  const message = useMessage();
  const [form] = Form.useForm<DelegationValues>();
  const delegations = useCall(delegationsApi.listDelegations, { query: { userId } });
  const forms = useCall(formsApi.listForms, {});
  const [error, setError] = useState<string>();
  const [editing, setEditing] = useState<Delegation>();
  const formList = forms.data?.items ?? [];
  const name = (id: string) => users.find((user) => user.id === id)?.name ?? id;
  const formName = (id: string | null) =>
    id === null ? t('profile.substitution.default') : (formList.find((one) => one.id === id)?.name ?? id);
  const { setData, reload } = delegations;
  useApplicationProgress(
    delegations.data?.items,
    (delegation) =>
      setData((list) =>
        list ? { items: list.items.map((one) => (one.id === delegation.id ? delegation : one)) } : list,
      ),
    reload,
  );

  const add = async (values: DelegationValues) => {
    setError(undefined);
    const failed = await save(form, t, () =>
      call(delegationsApi.createDelegation, { body: requestOf(userId, values) }),
    );
    setError(failed);
    if (failed) return;
    message.success(t('profile.substitution.saved'));
    form.resetFields();
    reload();
  };
  const remove = async (delegation: Delegation) => {
    try {
      await call(delegationsApi.deleteDelegation, { params: { delegationId: delegation.id } });
      setError(undefined);
    } catch (caught) {
      setError(refusal(caught, t).message);
    }
    reload();
  };

  return (
    <Card title={t('profile.substitution.title')} size="small" data-testid="substitution-card">
      {(error || delegations.error) && (
        <Alert
          type="error"
          role="alert"
          title={error ?? `${t('profile.errors.load')}: ${delegations.error}`}
          closable
          onClose={() => setError(undefined)}
          style={{ marginBottom: 8 }}
        />
      )}
      <Table<Delegation>
        rowKey="id"
        size="small"
        pagination={false}
        loading={delegations.loading && !delegations.data}
        dataSource={delegations.data?.items ?? []}
        locale={{ emptyText: t('profile.substitution.none') }}
        onRow={(row) => ({ 'data-testid': 'delegation-row', 'data-id': row.id }) as React.HTMLAttributes<HTMLElement>}
        columns={[
          { title: t('profile.substitution.substitute'), render: (_, row) => name(row.substituteUserId) },
          { title: t('profile.substitution.scope'), render: (_, row) => formName(row.formId) },
          { title: t('profile.substitution.period'), render: (_, row) => `${moscow(row.from)} – ${moscow(row.to)}` },
          {
            title: t('profile.substitution.progress'),
            render: (_, row) => <ApplicationProgress delegation={row} />,
          },
          ...(editable
            ? [
                {
                  title: '',
                  render: (_: unknown, row: Delegation) => (
                    <Space size={4}>
                      <Button size="small" onClick={() => setEditing(row)}>
                        {t('profile.substitution.edit')}
                      </Button>
                      <Popconfirm
                        title={t('profile.substitution.deleteConfirm')}
                        okText={t('profile.substitution.delete')}
                        cancelText={t('profile.substitution.cancel')}
                        onConfirm={() => void remove(row)}
                      >
                        <Button size="small" danger>
                          {t('profile.substitution.delete')}
                        </Button>
                      </Popconfirm>
                    </Space>
                  ),
                },
              ]
            : []),
        ]}
      />
      {editable && (
        <Form form={form} name="delegation" layout="vertical" onFinish={add} style={{ marginTop: 12 }}>
          <DelegationFields userId={userId} users={users} forms={formList} />
          <Button type="primary" htmlType="submit">
            {t('profile.substitution.add')}
          </Button>
        </Form>
      )}
      {editing && (
        <EditDelegation
          delegation={editing}
          users={users}
          forms={formList}
          onClose={() => setEditing(undefined)}
          onSaved={() => {
            setEditing(undefined);
            reload();
          }}
        />
      )}
    </Card>
  );
}
