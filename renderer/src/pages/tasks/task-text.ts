import { TASK_DESCRIPTION_MAX, TASK_TITLE_MAX } from '@shared/api/tasks';
import type { Rule } from 'antd/es/form';
import type { TFunction } from 'i18next';

/** A task's title as the server takes it: required, at most `TASK_TITLE_MAX` characters. */
export function taskTitleRules(t: TFunction): Rule[] {
  return [
    { required: true, whitespace: true, message: t('errors.required') },
    // Counted as the server counts it: once trimmed.
    {
      validator: async (_rule, value: unknown) => {
        if (typeof value === 'string' && value.trim().length > TASK_TITLE_MAX) {
          throw new Error(t('task.titleTooLong', { max: TASK_TITLE_MAX }));
        }
      },
    },
  ];
}

/** A task's description as the server takes it: at most `TASK_DESCRIPTION_MAX` characters. */
export function taskDescriptionRules(t: TFunction): Rule[] {
  return [{ max: TASK_DESCRIPTION_MAX, message: t('task.descriptionTooLong', { max: TASK_DESCRIPTION_MAX }) }];
}
