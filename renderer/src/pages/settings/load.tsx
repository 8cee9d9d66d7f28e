import { identityApi, type Role, type User } from '@shared/api/identity';
import { Alert, Button, Modal } from 'antd';
import type { TFunction } from 'i18next';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { call } from '../../api';
import { failureText, useLoad } from '../../use-api';

/** The server's words for a failed call, or the network message when the server was not reached. */
export function problemText(caught: unknown, t: TFunction): string {
  return failureText(caught, t);
}

export { useLoad };

/** Every user of the organization, by name (the list is paged at 200). */
export async function fetchAllUsers(): Promise<User[]> {
  const users: User[] = [];
  let cursor: string | null = null;
  do {
    // Typed here: `cursor` is read and written in the loop, which TypeScript cannot infer through.
    const page: { items: User[]; nextCursor: string | null } = await call(identityApi.listUsers, {
      query: { limit: 200, ...(cursor ? { cursor } : {}) },
    });
    users.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor);
  return users;
}

export async function fetchRoles(): Promise<Role[]> {
  return (await call(identityApi.listRoles)).items;
}

/** A date and time in the interface language's conventions. */
export function formatDateTime(iso: string, language: string): string {
  return new Date(iso).toLocaleString(language, { dateStyle: 'short', timeStyle: 'short' });
}

/** A failed load, with the server's reason and a way to try again. */
export function LoadFailed({ error, onRetry }: { error: string; onRetry: () => void }) {
  const { t } = useTranslation();
  return (
    <Alert
      type="error"
      role="alert"
      title={t('settings.loadFailed')}
      description={error}
      action={
        <Button size="small" onClick={onRetry}>
          {t('settings.retry')}
        </Button>
      }
      style={{ marginBottom: 12 }}
    />
  );
}

/** A refused action, with the server's reason, until closed (nothing shown without an error). */
export function ActionFailed({ error, onClose }: { error: string | undefined; onClose: () => void }) {
  const { t } = useTranslation();
  if (!error) return null;
  return (
    <Alert
      type="error"
      role="alert"
      title={t('settings.actionFailed')}
      description={error}
      closable={{ onClose }}
      style={{ marginBottom: 12 }}
    />
  );
}

/**
 * A dialog whose OK button runs `action` once at a time: the button spins meanwhile, and a refusal
 * shows the server's words above the content. The action closes the dialog itself on success.
 */
export function useDialogAction<A extends unknown[]>(action: (...args: A) => Promise<void>) {
  const { t } = useTranslation();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const run = async (...args: A) => {
    setBusy(true);
    try {
      await action(...args);
      setError(undefined);
    } catch (caught) {
      setError(problemText(caught, t));
    } finally {
      setBusy(false);
    }
  };
  return { run, busy, error };
}

export function ActionDialog({
  title,
  okText,
  busy,
  error,
  onOk,
  onCancel,
  children,
}: {
  title: string;
  okText?: string;
  busy: boolean;
  error?: string;
  onOk: () => void;
  onCancel: () => void;
  children: React.ReactNode;
}) {
  const { t } = useTranslation();
  return (
    <Modal
      open
      title={title}
      okText={okText ?? t('settings.save')}
      cancelText={t('settings.cancel')}
      confirmLoading={busy}
      onOk={onOk}
      onCancel={onCancel}
    >
      {error && <Alert type="error" role="alert" title={error} style={{ marginBottom: 12 }} />}
      {children}
    </Modal>
  );
}
