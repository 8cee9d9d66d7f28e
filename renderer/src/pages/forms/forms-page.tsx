import type { Form } from '@shared/api/forms';
import { formOpenTo } from '@shared/form-access';
import { Button, Empty, Flex, Table, Tag, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router';
import { map } from 'rxjs';
import { useLive, useReplica, useViewer } from '../../data/replica-context';
import type { FormDocument } from '../../data/schemas';
import { FormQrDialog } from '../qr/qr-codes';

/**
 * The forms registry, read from the offline replica: every form the user may use, with its
 * statuses, and the QR-code button of forms that have it; administrators create and edit forms here.
 */
export function FormsPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const { me, status } = useReplica();
  const viewer = useViewer();
  const forms = useLive(
    (r) => r.db.forms.find().$.pipe(map((docs) => docs.map((doc) => doc.toJSON() as unknown as FormDocument))),
    [],
  );
  const manages = me?.user.isAdmin === true;
  const [qrForm, setQrForm] = useState<Form>();
  // Forms open to the user, as the server lists them (the replica also holds the forms of tasks
  // assigned to the user and deleted forms, which the task page needs).
  const items = [...(forms ?? [])]
    .filter((form) => !form.deleted && viewer && formOpenTo(form.visibleRoleIds, viewer))
    .sort((a, b) => a.name.localeCompare(b.name));
  return (
    <div style={{ padding: 24 }}>
      <Flex justify="space-between" align="center" style={{ marginBottom: 16 }}>
        <Typography.Title level={3} style={{ margin: 0 }}>
          {t('forms.title')}
        </Typography.Title>
        {manages && (
          <Button type="primary" onClick={() => navigate('/forms/new')}>
            {t('formEditor.newForm')}
          </Button>
        )}
      </Flex>
      <Table<Form>
        rowKey="id"
        size="small"
        loading={!forms || (!status?.ready && items.length === 0)}
        dataSource={items}
        locale={{
          emptyText: <Empty description={manages ? t('formEditor.registryEmpty') : t('forms.empty')} />,
        }}
        pagination={false}
        columns={[
          {
            title: t('forms.name'),
            dataIndex: 'name',
            render: (name: string, form) => <Link to={`/tasks?formId=${form.id}`}>{name}</Link>,
          },
          { title: t('forms.fields'), render: (_, form) => form.fields.length, width: 100 },
          {
            title: t('forms.statuses'),
            render: (_, form) => (
              <Flex wrap gap={4} align="center">
                {form.statuses.map((s) => (
                  <Tag key={s.id}>{s.name}</Tag>
                ))}
                {form.qr_generation_enabled && (
                  <Button
                    size="small"
                    onClick={() => setQrForm(form)}
                    aria-label={t('qr.buttonLabel', { name: form.name })}
                  >
                    {t('qr.button')}
                  </Button>
                )}
              </Flex>
            ),
          },
          ...(manages
            ? [
                {
                  title: t('formEditor.actions'),
                  width: 120,
                  render: (_: unknown, form: Form) => (
                    <Link to={`/forms/${form.id}/edit`} aria-label={t('formEditor.editForm', { name: form.name })}>
                      {t('formEditor.edit')}
                    </Link>
                  ),
                },
              ]
            : []),
        ]}
      />
      {qrForm && <FormQrDialog form={qrForm} onClose={() => setQrForm(undefined)} />}
    </div>
  );
}
