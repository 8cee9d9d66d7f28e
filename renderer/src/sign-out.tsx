import { Alert, Button, Checkbox, Modal, Space, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { pendingOnDevice, useReplica } from './data/replica-context';
import { copyRemovalReason, ReplicaInUseError } from './data/replica-errors';
import { useMessage } from './messages';

/**
 * The header's "Sign out": asks whether this device keeps its copy of the data (offline work after
 * the next sign-in) or removes it (a shared computer), and says what a removal would discard.
 */
export function SignOutButton({ style }: { style?: React.CSSProperties }) {
  const { t } = useTranslation();
  const message = useMessage();
  const navigate = useNavigate();
  const { signOut, status, me } = useReplica();
  const [asking, setAsking] = useState(false);
  const [removeCopy, setRemoveCopy] = useState(false);
  const [working, setWorking] = useState(false);
  // A tab without the copy (another tab has it open) reads the count that tab keeps.
  const pending = status?.pending ?? (asking && me ? pendingOnDevice(me.user.id) : 0);

  const confirm = async () => {
    setWorking(true);
    try {
      await signOut({ removeCopy });
    } catch (caught) {
      if (caught instanceof ReplicaInUseError) message.error(t('signOut.inUse'));
      else message.error(t('signOut.removeFailed', { reason: copyRemovalReason(caught, t) }));
    } finally {
      setWorking(false);
      setAsking(false);
      setRemoveCopy(false);
      navigate('/sign-in');
    }
  };

  return (
    <>
      <Button type="text" style={style} onClick={() => setAsking(true)}>
        {t('app.signOut')}
      </Button>
      <Modal
        open={asking}
        title={t('signOut.title')}
        okText={removeCopy ? t('signOut.confirmRemove') : t('signOut.confirm')}
        okButtonProps={{ danger: removeCopy, loading: working }}
        cancelButtonProps={{ disabled: working }}
        closable={!working}
        maskClosable={!working}
        onOk={confirm}
        onCancel={() => setAsking(false)}
      >
        <Space orientation="vertical" style={{ width: '100%' }}>
          <Checkbox checked={removeCopy} disabled={working} onChange={(event) => setRemoveCopy(event.target.checked)}>
            {t('signOut.removeCopy')}
          </Checkbox>
          <Typography.Text type="secondary">
            {removeCopy ? t('signOut.removeCopyHint') : t('signOut.keptHint')}
          </Typography.Text>
          {removeCopy && pending > 0 && (
            <Alert
              type="warning"
              showIcon
              data-testid="sign-out-pending"
              message={t('signOut.pendingLost', { count: pending })}
            />
          )}
        </Space>
      </Modal>
    </>
  );
}
