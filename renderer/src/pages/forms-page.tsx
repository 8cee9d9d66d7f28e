import type { Form } from '@shared/api/forms';
import { Alert, Empty, Table, Tag, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { useApi } from '../use-api';

/** The forms registry: every form the user may use, with its statuses. */
export function FormsPage() {
  const { t } = useTranslation();
  const { data, error, loading } = useApi<{ items: Form[] }>('/api/forms');
  if (error) return <Alert type="error" title={error} role="alert" />;
  return (
    <div style={{ padding: 24 }}>
      <Typography.Title level={3}>{t('forms.title')}</Typography.Title>
      <Table<Form>
        rowKey="id"
        size="small"
        loading={loading}
        dataSource={data?.items ?? []}
        locale={{ emptyText: <Empty description={t('forms.empty')} /> }}
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
            render: (_, form) => form.statuses.map((s) => <Tag key={s.id}>{s.name}</Tag>),
          },
        ]}
      />
    </div>
  );
}
