import type { Role, User } from '@shared/api/identity';
import { Alert, Button } from 'antd';
import type { TFunction } from 'i18next';
import { useCallback, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { ApiError, api } from '../../api';

/** The server's words for a failed call, or the network message when the server was not reached. */
export function problemText(caught: unknown, t: TFunction): string {
  return caught instanceof ApiError && caught.problem.status > 0 ? caught.problem.detail : t('errors.network');
}

/**
 * Runs `load` and reruns it when `key` changes or `reload()` is called. Like `useApi`, but for
 * loads that take more than one request (every page of a list).
 */
export function useLoad<T>(key: string, load: () => Promise<T>) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  // Kept in a ref: a new closure on every render must not restart the load.
  const latest = useRef({ t, navigate, load });
  latest.current = { t, navigate, load };
  const [data, setData] = useState<T>();
  const [error, setError] = useState<string>();
  const [loading, setLoading] = useState(true);
  const [version, setVersion] = useState(0);
  // biome-ignore lint/correctness/useExhaustiveDependencies: `key` and `version` are the reload triggers.
  useEffect(() => {
    let current = true;
    setLoading(true);
    latest.current
      .load()
      .then((result) => {
        if (!current) return;
        setData(result);
        setError(undefined);
      })
      .catch((caught: unknown) => {
        if (!current) return;
        if (caught instanceof ApiError && caught.problem.status === 401) return latest.current.navigate('/sign-in');
        setError(problemText(caught, latest.current.t));
      })
      .finally(() => {
        if (current) setLoading(false);
      });
    return () => {
      current = false;
    };
  }, [key, version]);
  const reload = useCallback(() => setVersion((v) => v + 1), []);
  return { data, error, loading, reload, setData };
}

/** Every user of the organization, by name (the list is paged at 200). */
export async function fetchAllUsers(): Promise<User[]> {
  const users: User[] = [];
  let cursor: string | null = null;
  do {
    const query: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
    const page: { items: User[]; nextCursor: string | null } = await api('GET', `/api/users?limit=200${query}`);
    users.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor);
  return users;
}

export async function fetchRoles(): Promise<Role[]> {
  return (await api<{ items: Role[] }>('GET', '/api/roles')).items;
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
