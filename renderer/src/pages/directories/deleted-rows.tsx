import { type DeletedRow, directoriesApi } from '@shared/api/directories';
import { Alert, Button, Modal, Table, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { call } from '../../api';
import { useMessage } from '../../messages';
import { failureText, usePages } from '../../use-api';
import { formatDateTime } from '../settings/load';
import { cellText, type Directory } from './data';

/**
 * A directory's deleted rows, most recently deleted first, page after page, each restored with its
 * button: back in its place, with the children its deletion moved up (the server decides where).
 */
export function DeletedRows(props: {
  directory: Directory;
  /** The column that names a row, as the view shows it. */
  labelIndex: number;
  onClose: () => void;
  onRestored: () => void;
}) {
  const { t, i18n } = useTranslation();
  const message = useMessage();
  const pages = usePages(directoriesApi.listDeletedRows, { params: { directoryId: props.directory.id } });
  const [restoring, setRestoring] = useState<string>();
  const [refusal, setRefusal] = useState<string>();
  const labelOf = (row: DeletedRow) =>
    cellText(row.cells[props.labelIndex]) ||
    cellText(row.cells.find((cell) => cell !== null)) ||
    t('directories.noLabel');

  const restore = async (row: DeletedRow) => {
    const label = labelOf(row);
    setRestoring(row.id);
    try {
      await call(directoriesApi.restoreRow, { params: { directoryId: props.directory.id, rowId: row.id } });
      setRefusal(undefined);
      pages.drop(row.id);
      message.success({ key: `row-restored-${row.id}`, content: t('directories.rowRestored', { label }) });
      props.onRestored();
    } catch (caught) {
      setRefusal(failureText(caught, t));
    } finally {
      setRestoring(undefined);
    }
  };

  return (
    <Modal
      open
      width={640}
      title={t('directories.deletedRowsTitle', { name: props.directory.name })}
      onCancel={props.onClose}
      footer={null}
    >
      <Typography.Paragraph type="secondary">{t('directories.deletedRowsIntro')}</Typography.Paragraph>
      {(pages.error || refusal) && (
        <Alert
          type="error"
          role="alert"
          title={refusal ?? pages.error}
          style={{ marginBottom: 8 }}
          action={
            !refusal && (
              <Button size="small" onClick={() => void pages.reload()}>
                {t('directories.reload')}
              </Button>
            )
          }
        />
      )}
      <Table<DeletedRow>
        rowKey="id"
        size="small"
        data-testid="deleted-rows"
        loading={pages.loading && pages.items === undefined}
        dataSource={pages.items ?? []}
        pagination={false}
        locale={{ emptyText: pages.items === undefined ? ' ' : t('directories.noDeletedRows') }}
        columns={[
          { title: t('directories.rowTitle'), key: 'label', render: (_: unknown, row) => labelOf(row) },
          {
            title: t('directories.deletedAt'),
            dataIndex: 'deletedAt',
            render: (value: string) => formatDateTime(value, i18n.language),
          },
          {
            title: t('directories.deletedBy'),
            dataIndex: 'deletedBy',
            render: (by: DeletedRow['deletedBy']) => by?.name ?? '—',
          },
          {
            key: 'restore',
            render: (_: unknown, row) => (
              <Button
                size="small"
                loading={restoring === row.id}
                aria-label={t('directories.restoreRowNamed', { label: labelOf(row) })}
                onClick={() => void restore(row)}
              >
                {t('directories.restoreRow')}
              </Button>
            ),
          },
        ]}
      />
      {pages.nextCursor && (
        <Button style={{ marginTop: 12 }} loading={pages.loading} onClick={() => void pages.more()}>
          {t('directories.moreRows')}
        </Button>
      )}
    </Modal>
  );
}
