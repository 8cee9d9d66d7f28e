import { directoriesApi } from '@shared/api/directories';
import { Alert, Form as AntForm, Button, Input, Modal, Select, Space, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { call } from '../../api';
import { cellText, type Directory, failureText, fetchAllRows, fieldErrors, useLoad } from './data';

const COLUMN_TYPES = ['text', 'number', 'date', 'checkbox'] as const;
/** The "no grouping" choice of the group-by select (a Select cannot hold null as a value). */
const NO_GROUPING = -1;

interface Values {
  name: string;
  columns: { name: string; type: (typeof COLUMN_TYPES)[number] }[];
  tree_display_column_index: number;
  treeColumnIndex: number;
  parentDirectoryId?: string;
  parentRowIds?: string[];
}

interface DirectoryFormProps {
  /** The directory to change; none to create one. */
  directory?: Directory;
  directories: Directory[];
  /** Whether the directory holds rows: then its columns keep their types. */
  hasRows: boolean;
  onClose: () => void;
  onSaved: (directory: Directory) => void;
}

/** Creates a directory (or a sub-directory bound to rows of its parent) or changes its settings. */
export function DirectoryForm({ directory, directories, hasRows, onClose, onSaved }: DirectoryFormProps) {
  const { t } = useTranslation();
  // Untyped: field errors from the server name fields by paths built at run time.
  const [form] = AntForm.useForm();
  const [error, setError] = useState<{ title: string; details: string[] }>();
  const [saving, setSaving] = useState(false);
  const columns: Values['columns'] = AntForm.useWatch('columns', form) ?? directory?.columns ?? [];
  const chosenParent: string | undefined = AntForm.useWatch('parentDirectoryId', form);
  const parentId = directory ? (directory.parentDirectoryId ?? undefined) : chosenParent;
  const parent = directories.find((d) => d.id === parentId);
  const parentRows = useLoad(parentId, () => fetchAllRows(parentId as string));
  const existing = directory?.columns.length ?? 0;

  const submit = async (values: Values) => {
    const common = {
      name: values.name,
      columns: values.columns,
      tree_display_column_index: values.tree_display_column_index,
      treeColumnIndex: values.treeColumnIndex === NO_GROUPING ? null : values.treeColumnIndex,
    };
    setSaving(true);
    try {
      const saved = directory
        ? await call(directoriesApi.updateDirectory, {
            params: { directoryId: directory.id },
            body: { ...common, ...(directory.parentDirectoryId ? { parentRowIds: values.parentRowIds ?? [] } : {}) },
          })
        : await call(directoriesApi.createDirectory, {
            body: {
              ...common,
              parentDirectoryId: values.parentDirectoryId ?? null,
              parentRowIds: values.parentDirectoryId ? (values.parentRowIds ?? []) : [],
            },
          });
      setError(undefined);
      onSaved(saved);
    } catch (caught) {
      const errors = fieldErrors(caught);
      setError({ title: failureText(caught, t), details: errors.map((e) => e.detail) });
      // Pointers like `#/columns/2/type` name the form's own fields.
      form.setFields(
        errors.map((e) => ({
          name: e.pointer
            .split('/')
            .slice(1)
            .map((part) => (/^\d+$/.test(part) ? Number(part) : part)),
          errors: [e.detail],
        })),
      );
    } finally {
      setSaving(false);
    }
  };

  const parentLabel = parent?.tree_display_column_index ?? 0;
  const columnOptions = columns.map((column, index) => ({
    value: index,
    label: column?.name || t('directories.columnN', { n: index + 1 }),
  }));

  return (
    <Modal
      open
      title={directory ? t('directories.settingsTitle', { name: directory.name }) : t('directories.newDirectory')}
      onCancel={onClose}
      footer={null}
      width={640}
      destroyOnHidden
    >
      {error && (
        <Alert
          type="error"
          role="alert"
          title={error.title}
          description={error.details.length > 0 ? error.details.join('; ') : undefined}
          style={{ marginBottom: 12 }}
        />
      )}
      <AntForm
        form={form}
        layout="vertical"
        size="small"
        onFinish={submit}
        initialValues={{
          name: directory?.name ?? '',
          columns: directory?.columns ?? [{ name: '', type: 'text' }],
          tree_display_column_index: directory?.tree_display_column_index ?? 0,
          treeColumnIndex: directory?.treeColumnIndex ?? NO_GROUPING,
          parentRowIds: directory?.parentRowIds ?? [],
        }}
      >
        <AntForm.Item
          name="name"
          label={t('directories.name')}
          rules={[{ required: true, whitespace: true, message: t('errors.required') }]}
        >
          <Input aria-label={t('directories.name')} autoFocus />
        </AntForm.Item>
        <Typography.Text strong>{t('directories.columns')}</Typography.Text>
        {directory && hasRows && (
          <Typography.Paragraph type="secondary" style={{ margin: 0 }}>
            {t('directories.columnsLocked')}
          </Typography.Paragraph>
        )}
        <AntForm.List name="columns">
          {(fields, { add, remove }) => (
            <div style={{ margin: '8px 0 16px' }}>
              {fields.map((field, index) => (
                <Space key={field.key} align="start" style={{ display: 'flex' }}>
                  <AntForm.Item
                    name={[field.name, 'name']}
                    rules={[{ required: true, whitespace: true, message: t('errors.required') }]}
                    style={{ marginBottom: 6 }}
                  >
                    <Input
                      aria-label={t('directories.columnName', { n: index + 1 })}
                      placeholder={t('directories.columnN', { n: index + 1 })}
                      style={{ width: 260 }}
                    />
                  </AntForm.Item>
                  <AntForm.Item name={[field.name, 'type']} style={{ marginBottom: 6 }}>
                    <Select
                      aria-label={t('directories.columnType', { n: index + 1 })}
                      style={{ width: 140 }}
                      disabled={index < existing && hasRows}
                      options={COLUMN_TYPES.map((type) => ({ value: type, label: t(`directories.types.${type}`) }))}
                    />
                  </AntForm.Item>
                  {index >= existing && fields.length > 1 && (
                    <Button
                      aria-label={t('directories.removeColumn', { n: index + 1 })}
                      onClick={() => remove(field.name)}
                    >
                      ×
                    </Button>
                  )}
                </Space>
              ))}
              <Button size="small" onClick={() => add({ name: '', type: 'text' })}>
                {t('directories.addColumn')}
              </Button>
              {directory && (
                <Typography.Paragraph type="secondary" style={{ margin: '4px 0 0' }}>
                  {t('directories.columnsAppendOnly')}
                </Typography.Paragraph>
              )}
            </div>
          )}
        </AntForm.List>
        <Space size="middle" wrap>
          <AntForm.Item name="tree_display_column_index" label={t('directories.labelColumn')}>
            <Select aria-label={t('directories.labelColumn')} style={{ width: 220 }} options={columnOptions} />
          </AntForm.Item>
          <AntForm.Item name="treeColumnIndex" label={t('directories.defaultGrouping')}>
            <Select
              aria-label={t('directories.defaultGrouping')}
              style={{ width: 220 }}
              options={[{ value: NO_GROUPING, label: t('directories.byParent') }, ...columnOptions]}
            />
          </AntForm.Item>
        </Space>
        {!directory && (
          <AntForm.Item
            name="parentDirectoryId"
            label={t('directories.parentDirectory')}
            extra={t('directories.parentDirectoryHint')}
          >
            <Select
              aria-label={t('directories.parentDirectory')}
              allowClear
              placeholder={t('directories.noParentDirectory')}
              // Rows chosen under another parent mean nothing under this one.
              onChange={() => form.setFieldValue('parentRowIds', [])}
              options={directories.map((d) => ({ value: d.id, label: d.name }))}
            />
          </AntForm.Item>
        )}
        {parentId && (
          <AntForm.Item
            name="parentRowIds"
            label={t('directories.boundRows', { name: parent?.name ?? '' })}
            extra={t('directories.boundRowsHint')}
          >
            <Select
              mode="multiple"
              allowClear
              aria-label={t('directories.boundRowsLabel')}
              loading={parentRows.loading}
              showSearch={{ optionFilterProp: 'label' }}
              options={(parentRows.data ?? []).map((row) => ({
                value: row.id,
                label: cellText(row.cells[parentLabel]) || t('directories.noLabel'),
              }))}
            />
          </AntForm.Item>
        )}
        {parentRows.error && <Alert type="error" role="alert" title={parentRows.error} style={{ marginBottom: 12 }} />}
        <Space>
          <Button type="primary" htmlType="submit" loading={saving}>
            {directory ? t('directories.save') : t('directories.create')}
          </Button>
          <Button onClick={onClose}>{t('directories.cancel')}</Button>
        </Space>
      </AntForm>
    </Modal>
  );
}
