import { Empty } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useParams } from 'react-router';
import { useReplica } from '../../data/replica-context';
import { fetchDirectories, useLoad } from './data';
import { DirectoryForm } from './directory-form';
import { DirectoryList } from './directory-list';
import { DirectoryView } from './directory-view';

/** Directories (reference tables): the list beside the chosen directory's rows. */
export function DirectoriesPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const { directoryId } = useParams();
  const { me } = useReplica();
  const list = useLoad('directories', fetchDirectories);
  const [creating, setCreating] = useState(false);
  const isAdmin = me?.user.isAdmin ?? false;
  const directories = list.data?.items ?? [];

  return (
    <div style={{ display: 'flex', gap: 16, padding: 16, alignItems: 'flex-start' }}>
      <aside style={{ width: 320, flex: 'none' }}>
        <DirectoryList
          directories={list.data?.items}
          loading={list.loading}
          error={list.error}
          isAdmin={isAdmin}
          selectedId={directoryId}
          onCreate={() => setCreating(true)}
          onChanged={list.reload}
          onDeleted={(id) => {
            list.reload();
            if (id === directoryId) navigate('/directories');
          }}
        />
      </aside>
      <main style={{ flex: 1, minWidth: 0 }}>
        {directoryId ? (
          // Keyed: another directory starts with a fresh view (selection, editor, pending moves).
          <DirectoryView
            key={directoryId}
            directoryId={directoryId}
            directories={directories}
            isAdmin={isAdmin}
            onDirectoryChanged={list.reload}
          />
        ) : (
          <Empty
            style={{ marginTop: 64 }}
            description={directories.length > 0 ? t('directories.choose') : t('directories.chooseNone')}
          />
        )}
      </main>
      {creating && (
        <DirectoryForm
          directories={directories}
          hasRows={false}
          onClose={() => setCreating(false)}
          onSaved={(directory) => {
            setCreating(false);
            list.reload();
            navigate(`/directories/${directory.id}`);
          }}
        />
      )}
    </div>
  );
}
