import type { ProblemFieldError } from '@shared/api/problem';
import { Typography } from 'antd';
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';

/** The user's words for a server check, by its code; the server's own detail where none is known. */
export function problemText(t: TFunction, error: ProblemFieldError): string {
  return t(`formEditor.problems.${error.code}`, { defaultValue: error.detail });
}

/** Errors under a control, each in the user's language with the server's detail as a tooltip. */
export function InlineProblems({ errors }: { errors: (ProblemFieldError | undefined)[] }) {
  const { t } = useTranslation();
  const shown = errors.filter((error) => error !== undefined);
  if (shown.length === 0) return null;
  return (
    <>
      {shown.map((error) => (
        <Typography.Text
          key={error.pointer}
          type="danger"
          title={error.detail}
          data-testid="inline-problem"
          style={{ display: 'block', fontSize: 12 }}
        >
          {problemText(t, error)}
        </Typography.Text>
      ))}
    </>
  );
}
