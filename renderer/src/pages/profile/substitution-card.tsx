import { type Delegation, delegationsApi } from '@shared/api/delegations';
import { formsApi } from '@shared/api/forms';
import type { User } from '@shared/api/identity';
import { Alert, Button, Card, Form, Input, Popconfirm, Select, Space, Table } from 'antd';
import { DateTime } from 'luxon';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { call } from '../../api';
import { useMessage } from '../../messages';
import { failureText, useCall } from '../../use-api';

/** Periods are entered and shown in Moscow time, and travel as UTC instants. */
const ZONE = 'Europe/Moscow';
const moscow = (iso: string) => DateTime.fromISO(iso, { zone: ZONE }).toFormat('dd.MM.yyyy HH:mm');
const fromMoscow = (local: string) => DateTime.fromISO(local, { zone: ZONE }).toUTC().toISO() as string;

interface NewDelegation {
  substituteUserId: string;
  formId?: string;
  from: string;
  to: string;
}

/**
 * The "Substitution" section of a profile: who replaces the user while they are away, by default
 * or for one form, and for which period (Moscow time); the user's own, or anyone's for administrators.
 */
export function SubstitutionCard({ userId, users, editable }: { userId: string; users: User[]; editable: boolean }) {
  const { t } = useTranslation();
  const message = useMessage();
  const [form] = Form.useForm<NewDelegation>();
  const delegations = useCall(delegationsApi.listDelegations, { query: { userId } });
  const forms = useCall(formsApi.listForms, {});
  const [error, setError] = useState<string>();
  const name = (id: string) => users.find((user) => user.id === id)?.name ?? id;
  const formName = (id: string | null) =>
    id === null
      ? t('profile.substitution.default')
      : ((forms.data?.items ?? []).find((one) => one.id === id)?.name ?? id);

  const add = async (values: NewDelegation) => {
    setError(undefined);
    try {
      await call(delegationsApi.createDelegation, {
        body: {
          userId,
          substituteUserId: values.substituteUserId,
          formId: values.formId ?? null,
          from: fromMoscow(values.from),
          to: fromMoscow(values.to),
        },
      });
      message.success(t('profile.substitution.saved'));
      form.resetFields();
      delegations.reload();
    } catch (caught) {
      setError(failureText(caught, t));
    }
  };
  const remove = async (delegation: Delegation) => {
    try {
      await call(delegationsApi.deleteDelegation, { params: { delegationId: delegation.id } });
      delegations.reload();
    } catch (caught) {
      setError(failureText(caught, t));
    }
  };

  return (
    <Card title={t('profile.substitution.title')} size="small" data-testid="substitution-card">
      {error && (
        <Alert
          type="error"
          role="alert"
          title={error}
          closable
          onClose={() => setError(undefined)}
          style={{ marginBottom: 8 }}
        />
      )}
      <Table<Delegation>
        rowKey="id"
        size="small"
        pagination={false}
        loading={delegations.loading}
        dataSource={delegations.data?.items ?? []}
        locale={{ emptyText: t('profile.substitution.none') }}
        columns={[
          { title: t('profile.substitution.substitute'), render: (_, row) => name(row.substituteUserId) },
          { title: t('profile.substitution.scope'), render: (_, row) => formName(row.formId) },
          { title: t('profile.substitution.period'), render: (_, row) => `${moscow(row.from)} – ${moscow(row.to)}` },
          ...(editable
            ? [
                {
                  title: '',
                  render: (_: unknown, row: Delegation) => (
                    <Popconfirm title={t('profile.substitution.deleteConfirm')} onConfirm={() => void remove(row)}>
                      <Button size="small" danger>
                        {t('profile.substitution.delete')}
                      </Button>
                    </Popconfirm>
                  ),
                },
              ]
            : []),
        ]}
      />
      {editable && (
        <Form form={form} name="delegation" layout="vertical" onFinish={add} style={{ marginTop: 12 }}>
          <Space wrap align="start">
            <Form.Item
              name="substituteUserId"
              label={t('profile.substitution.substitute')}
              rules={[{ required: true, message: t('errors.required') }]}
            >
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
                options={(forms.data?.items ?? []).map((one) => ({ value: one.id, label: one.name }))}
              />
            </Form.Item>
            <Form.Item
              name="from"
              label={t('profile.substitution.from')}
              rules={[{ required: true, message: t('errors.required') }]}
            >
              <Input type="datetime-local" aria-label={t('profile.substitution.from')} />
            </Form.Item>
            <Form.Item
              name="to"
              label={t('profile.substitution.to')}
              rules={[{ required: true, message: t('errors.required') }]}
            >
              <Input type="datetime-local" aria-label={t('profile.substitution.to')} />
            </Form.Item>
          </Space>
          <Button type="primary" htmlType="submit">
            {t('profile.substitution.add')}
          </Button>
        </Form>
      )}
    </Card>
  );
}
