import type { Shape } from '../../i18n/shape';

/** Strings of this screen (i18n section `profile`). */
export const ru = {
  title: 'TODO',
};

export const en: Shape<typeof ru> = {
  title: 'TODO',
};
