import { directoriesApi } from '@shared/api/directories';
import { Alert, Form as AntForm, Button, Empty, Input, Modal, Popconfirm, Space, Table, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { call } from '../../api';
import { useMessage } from '../../messages';
import { showUndoable } from '../common/undo-notice';
import { type Directory, failureText } from './data';

interface Entry {
  directory: Directory;
  depth: number;
}

/** Directories in name order, each sub-directory right under its parent. */
function ordered(directories: readonly Directory[]): Entry[] {
  const byName = [...directories].sort((a, b) => a.name.localeCompare(b.name));
  const known = new Set(directories.map((d) => d.id));
  const out: Entry[] = [];
  const walk = (parentId: string | null, depth: number) => {
    for (const directory of byName) {
      // A sub-directory whose parent is not listed is shown at the top level.
      const parent =
        directory.parentDirectoryId && known.has(directory.parentDirectoryId) ? directory.parentDirectoryId : null;
      if (parent !== parentId) continue;
      out.push({ directory, depth });
      walk(directory.id, depth + 1);
    }
  };
  walk(null, 0);
  return out;
}

function RenameModal({
  directory,
  onClose,
  onSaved,
}: {
  directory: Directory;
  onClose: () => void;
  onSaved: () => void;
}) {
  const { t } = useTranslation();
  const [error, setError] = useState<string>();
  const [saving, setSaving] = useState(false);
  return (
    <Modal
      open
      title={t('directories.renameTitle', { name: directory.name })}
      onCancel={onClose}
      footer={null}
      destroyOnHidden
    >
      {error && <Alert type="error" role="alert" title={error} style={{ marginBottom: 12 }} />}
      <AntForm
        layout="vertical"
        initialValues={{ name: directory.name }}
        onFinish={async ({ name }: { name: string }) => {
          setSaving(true);
          try {
            await call(directoriesApi.updateDirectory, { params: { directoryId: directory.id }, body: { name } });
            onSaved();
          } catch (caught) {
            setError(failureText(caught, t));
          } finally {
            setSaving(false);
          }
        }}
      >
        <AntForm.Item
          name="name"
          label={t('directories.name')}
          rules={[{ required: true, whitespace: true, message: t('errors.required') }]}
        >
          <Input aria-label={t('directories.name')} autoFocus />
        </AntForm.Item>
        <Space>
          <Button type="primary" htmlType="submit" loading={saving}>
            {t('directories.save')}
          </Button>
          <Button onClick={onClose}>{t('directories.cancel')}</Button>
        </Space>
      </AntForm>
    </Modal>
  );
}

interface DirectoryListProps {
  directories: Directory[] | undefined;
  loading: boolean;
  error: string | undefined;
  isAdmin: boolean;
  selectedId: string | undefined;
  onCreate: () => void;
  onChanged: () => void;
  onDeleted: (id: string) => void;
}

/** The organization's directories; administrators create, rename and delete them here. */
export function DirectoryList(props: DirectoryListProps) {
  const { t } = useTranslation();
  const message = useMessage();
  const [renaming, setRenaming] = useState<Directory>();
  const [error, setError] = useState<string>();
  const entries = ordered(props.directories ?? []);

  const remove = async (directory: Directory) => {
    try {
      await call(directoriesApi.deleteDirectory, { params: { directoryId: directory.id } });
      setError(undefined);
      props.onDeleted(directory.id);
    } catch (caught) {
      setError(failureText(caught, t));
      return;
    }
    const { id, name } = directory;
    showUndoable(message, {
      key: `directory-deleted-${id}`,
      text: t('directories.directoryDeleted', { name }),
      undoLabel: t('directories.undoDelete'),
      testId: 'directory-deleted',
      undo: async () => {
        try {
          await call(directoriesApi.restoreDirectory, { params: { directoryId: id } });
          message.success({ key: `directory-restored-${id}`, content: t('directories.directoryRestored', { name }) });
          props.onChanged();
        } catch (caught) {
          setError(failureText(caught, t));
        }
      },
    });
  };

  return (
    <div>
      <Space style={{ width: '100%', justifyContent: 'space-between', marginBottom: 8 }}>
        <Typography.Title level={4} style={{ margin: 0 }}>
          {t('directories.title')}
        </Typography.Title>
        {props.isAdmin && (
          <Button type="primary" size="small" onClick={props.onCreate}>
            {t('directories.newDirectory')}
          </Button>
        )}
      </Space>
      {(props.error || error) && (
        <Alert
          type="error"
          role="alert"
          title={props.error ?? error}
          closable={props.error ? false : { onClose: () => setError(undefined) }}
          style={{ marginBottom: 8 }}
        />
      )}
      <Table<Entry>
        aria-label={t('directories.listLabel')}
        rowKey={(entry) => entry.directory.id}
        size="small"
        showHeader={false}
        loading={props.loading && !props.directories}
        dataSource={entries}
        pagination={false}
        rowClassName={(entry) => (entry.directory.id === props.selectedId ? 'ant-table-row-selected' : '')}
        locale={{
          emptyText: (
            <Empty
              image={Empty.PRESENTED_IMAGE_SIMPLE}
              description={props.isAdmin ? t('directories.emptyListAdmin') : t('directories.emptyList')}
            />
          ),
        }}
        columns={[
          {
            key: 'name',
            render: (_, { directory, depth }) => (
              <span style={{ paddingLeft: depth * 16 }}>
                {depth > 0 && <Typography.Text type="secondary">↳ </Typography.Text>}
                <Link to={`/directories/${directory.id}`} data-testid="directory-link">
                  {directory.id === props.selectedId ? <strong>{directory.name}</strong> : directory.name}
                </Link>
              </span>
            ),
          },
          ...(props.isAdmin
            ? [
                {
                  key: 'actions',
                  width: 150,
                  align: 'right' as const,
                  render: (_: unknown, { directory }: Entry) => (
                    <Space size={0}>
                      <Button
                        type="link"
                        size="small"
                        aria-label={t('directories.renameNamed', { name: directory.name })}
                        onClick={() => setRenaming(directory)}
                      >
                        {t('directories.rename')}
                      </Button>
                      <Popconfirm
                        title={t('directories.deleteDirectoryTitle', { name: directory.name })}
                        description={t('directories.deleteDirectoryText')}
                        okText={t('directories.delete')}
                        cancelText={t('directories.cancel')}
                        onConfirm={() => remove(directory)}
                      >
                        <Button
                          type="link"
                          size="small"
                          danger
                          aria-label={t('directories.deleteNamed', { name: directory.name })}
                        >
                          {t('directories.delete')}
                        </Button>
                      </Popconfirm>
                    </Space>
                  ),
                },
              ]
            : []),
        ]}
      />
      {renaming && (
        <RenameModal
          directory={renaming}
          onClose={() => setRenaming(undefined)}
          onSaved={() => {
            setRenaming(undefined);
            props.onChanged();
          }}
        />
      )}
    </div>
  );
}
