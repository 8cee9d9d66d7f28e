import { type ProfileField, type ProfileFieldType, profileApi } from '@shared/api/profile';
import { Alert, Button, Card, Form, Input, Modal, Popconfirm, Select, Space, Table, Tag, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { call } from '../../api';
import { useMessage } from '../../messages';
import { failureText } from '../../use-api';

const FIELD_TYPES: readonly ProfileFieldType[] = ['text', 'number', 'date', 'checkbox', 'select', 'history-number'];

interface Definition {
  name: string;
  type: ProfileFieldType;
  options?: string[];
}

/** Name, type and (for a choice field) its choices: the controls of both the add row and the edit dialog. */
function DefinitionInputs({ inline }: { inline: boolean }) {
  const { t } = useTranslation();
  const required = [{ required: true, whitespace: true, message: t('errors.required') }];
  const width = inline ? { width: 220 } : undefined;
  return (
    <>
      <Form.Item name="name" rules={required} label={inline ? undefined : t('profile.definitions.name')}>
        <Input aria-label={t('profile.definitions.name')} placeholder={t('profile.definitions.name')} style={width} />
      </Form.Item>
      <Form.Item name="type" rules={required} label={inline ? undefined : t('profile.definitions.type')}>
        <Select<ProfileFieldType>
          aria-label={t('profile.definitions.type')}
          placeholder={t('profile.definitions.type')}
          style={inline ? { width: 200 } : undefined}
          options={FIELD_TYPES.map((type) => ({ value: type, label: t(`profile.types.${type}`) }))}
        />
      </Form.Item>
      <Form.Item noStyle dependencies={['type']}>
        {({ getFieldValue }) =>
          getFieldValue('type') === 'select' && (
            <Form.Item
              name="options"
              label={inline ? undefined : t('profile.definitions.options')}
              rules={[{ required: true, type: 'array', min: 1, message: t('profile.definitions.optionsRequired') }]}
            >
              <Select
                mode="tags"
                aria-label={t('profile.definitions.options')}
                placeholder={t('profile.definitions.optionsHint')}
                style={inline ? { minWidth: 260 } : undefined}
                tokenSeparators={[',']}
              />
            </Form.Item>
          )
        }
      </Form.Item>
    </>
  );
}

/**
 * The organization's profile field definitions, for administrators: add, rename, change type or
 * choices (the server refuses a type change once anyone has a value), delete.
 */
export function FieldDefinitionsCard({
  fields,
  loading,
  onChanged,
}: {
  fields: readonly ProfileField[];
  loading: boolean;
  onChanged: () => void;
}) {
  const { t, i18n } = useTranslation();
  const message = useMessage();
  const [addForm] = Form.useForm<Definition>();
  const [editForm] = Form.useForm<Definition>();
  const [editing, setEditing] = useState<ProfileField>();
  const [error, setError] = useState<string>();
  const [editError, setEditError] = useState<string>();
  const [busy, setBusy] = useState(false);

  const describe = (caught: unknown) => failureText(caught, t);
  const body = (values: Definition) => ({
    name: values.name,
    type: values.type,
    options: values.type === 'select' ? (values.options ?? []) : null,
  });

  const add = async (values: Definition) => {
    setBusy(true);
    try {
      await call(profileApi.createProfileField, { body: body(values) });
      setError(undefined);
      addForm.resetFields();
      message.success(t('profile.definitions.added'));
      onChanged();
    } catch (caught) {
      setError(describe(caught));
    } finally {
      setBusy(false);
    }
  };

  const save = async (values: Definition) => {
    if (!editing) return;
    setBusy(true);
    try {
      await call(profileApi.updateProfileField, { params: { fieldId: editing.id }, body: body(values) });
      setEditing(undefined);
      setEditError(undefined);
      message.success(t('profile.definitions.updated'));
      onChanged();
    } catch (caught) {
      setEditError(describe(caught));
    } finally {
      setBusy(false);
    }
  };

  const remove = async (field: ProfileField) => {
    try {
      await call(profileApi.deleteProfileField, { params: { fieldId: field.id } });
      setError(undefined);
      message.success(t('profile.definitions.deleted'));
      onChanged();
    } catch (caught) {
      setError(describe(caught));
    }
  };

  const dates = new Intl.DateTimeFormat(i18n.language, { dateStyle: 'medium' });
  return (
    <Card size="small" title={t('profile.definitions.title')} data-testid="field-definitions">
      <Typography.Paragraph type="secondary" style={{ fontSize: 12 }}>
        {t('profile.definitions.hint')}
      </Typography.Paragraph>
      {error && <Alert type="error" role="alert" title={error} style={{ marginBottom: 12 }} />}
      <Form form={addForm} layout="inline" onFinish={add} requiredMark={false} style={{ marginBottom: 12, rowGap: 8 }}>
        <DefinitionInputs inline />
        <Form.Item>
          <Button type="primary" htmlType="submit" loading={busy}>
            {t('profile.definitions.add')}
          </Button>
        </Form.Item>
      </Form>
      <Table<ProfileField>
        size="small"
        rowKey="id"
        loading={loading}
        pagination={false}
        dataSource={[...fields]}
        locale={{ emptyText: t('profile.definitions.empty') }}
        columns={[
          { title: t('profile.definitions.name'), dataIndex: 'name' },
          { title: t('profile.definitions.type'), dataIndex: 'type', render: (type) => t(`profile.types.${type}`) },
          {
            title: t('profile.definitions.options'),
            dataIndex: 'options',
            render: (options: string[] | null) => options?.map((option) => <Tag key={option}>{option}</Tag>),
          },
          {
            title: t('profile.definitions.created'),
            dataIndex: 'createdAt',
            render: (createdAt: string) => dates.format(new Date(createdAt)),
          },
          {
            title: t('profile.definitions.actions'),
            key: 'actions',
            render: (_value, field) => (
              <Space size="small">
                <Button
                  size="small"
                  aria-label={`${t('profile.definitions.edit')}: ${field.name}`}
                  onClick={() => {
                    setEditing(field);
                    setEditError(undefined);
                    editForm.setFieldsValue({ name: field.name, type: field.type, options: field.options ?? [] });
                  }}
                >
                  {t('profile.definitions.edit')}
                </Button>
                <Popconfirm
                  title={t('profile.definitions.deleteConfirm', { name: field.name })}
                  okText={t('profile.definitions.delete')}
                  cancelText={t('profile.definitions.cancel')}
                  onConfirm={() => remove(field)}
                >
                  <Button size="small" danger aria-label={`${t('profile.definitions.delete')}: ${field.name}`}>
                    {t('profile.definitions.delete')}
                  </Button>
                </Popconfirm>
              </Space>
            ),
          },
        ]}
      />
      <Modal
        open={editing !== undefined}
        title={t('profile.definitions.editTitle', { name: editing?.name ?? '' })}
        okText={t('profile.definitions.save')}
        cancelText={t('profile.definitions.cancel')}
        confirmLoading={busy}
        onOk={() => editForm.submit()}
        onCancel={() => setEditing(undefined)}
        forceRender
      >
        {editError && <Alert type="error" role="alert" title={editError} style={{ marginBottom: 12 }} />}
        <Form form={editForm} layout="vertical" onFinish={save} requiredMark={false}>
          <DefinitionInputs inline={false} />
        </Form>
      </Modal>
    </Card>
  );
}
