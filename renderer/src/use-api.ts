import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { ApiError, api } from './api';

/** Loads `path` (GET) and reloads when it changes; errors come as the server's words. */
export function useApi<T>(path: string | undefined) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [data, setData] = useState<T>();
  const [error, setError] = useState<string>();
  const [loading, setLoading] = useState(true);
  const [version, setVersion] = useState(0);
  // biome-ignore lint/correctness/useExhaustiveDependencies: `version` is the reload trigger.
  useEffect(() => {
    if (!path) return;
    let current = true;
    setLoading(true);
    api<T>('GET', path)
      .then((result) => {
        if (current) {
          setData(result);
          setError(undefined);
        }
      })
      .catch((caught: unknown) => {
        if (!current) return;
        // The session ended (or never began): sign in again.
        if (caught instanceof ApiError && caught.problem.status === 401) return navigate('/sign-in');
        setError(caught instanceof ApiError && caught.problem.status > 0 ? caught.problem.detail : t('errors.network'));
      })
      .finally(() => current && setLoading(false));
    return () => {
      current = false;
    };
  }, [path, t, version, navigate]);
  const reload = useCallback(() => setVersion((v) => v + 1), []);
  return { data, error, loading, reload };
}
